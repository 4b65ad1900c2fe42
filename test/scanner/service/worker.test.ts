import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getProjectBalance } from "../../../src/credits/ledger.ts";
import { classify, decodeText, extractFile, ALLOWED_EXTENSIONS, type Section } from "../../../src/scanner/extract/index.ts";
import { projectVocabulary, ALL_FILES_FAILED, MISSING_FROM_ARCHIVE } from "../../../src/scanner/worker/processScanJob.ts";
import { uploadPath } from "../../../src/scanner/uploadStore.ts";
import { getJobDetail } from "../../../src/scanner/readJobs.ts";
import { JobDetailResponse } from "../../../src/scanner/scannerSchemas.ts";
import { Value } from "@sinclair/typebox/value";
import { buildZip, deflateZeros, sha256Hex } from "../../support/zipBuilder.ts";
import { job, LORE, manifestOf, runWorker, scanFixture, submitAndUpload, zipOf, type FileSpec, type ScanFixture } from "./scanSupport.ts";

let f: ScanFixture;
beforeAll(async () => {
  f = await scanFixture();
});
afterAll(() => f.close());

const fixture = (name: string) => readFileSync(join(import.meta.dir, "..", "extract", "fixtures", name));
/** The confidence classify gives the file's only candidate on its own. */
function classifyOne(file: FileSpec): number {
  const vocab = projectVocabulary(f.t.app.ctx, f.w.projectId);
  return classify(extractFile(file.path, String(file.data)).sections, vocab)[0].confidence;
}
const available = () => getProjectBalance(f.t.app.ctx, f.w.projectId).available;

/** One file per supported extension (29), from the extractor's realistic fixtures. */
const EVERY_FORMAT: FileSpec[] = [
  ["notes.txt", "docs/notes.txt"], ["lore.md", "docs/lore.md"], ["lore.md", "docs/lore-copy.markdown"], ["page.html", "web/page.html"],
  ["tavern.ink", "dialogue/tavern.ink"], ["garrick.yarn", "dialogue/garrick.yarn"], ["story.twee", "story/story.tw"],
  ["story.twee", "story/story.twee"], ["script.rpy", "renpy/script.rpy"], ["npcs.json", "data/npcs.json"],
  ["dialogue.csv", "data/dialogue.csv"], ["places.tsv", "data/places.tsv"], ["codex.xml", "data/codex.xml"],
  ["items.yaml", "data/items.yaml"], ["items.yaml", "data/items-copy.yml"], ["quests.toml", "data/quests.toml"],
  ["Garrick.asset", "Assets/Garrick.asset"], ["Garrick.asset", "Assets/Garrick.playable"], ["Tavern.prefab", "Assets/Tavern.prefab"],
  ["Tavern.prefab", "Assets/Tavern.unity"], ["garrick.tres", "godot/garrick.tres"], ["tavern.tscn", "godot/tavern.tscn"],
  ["intro.dtl", "godot/intro.dtl"], ["npc.gd", "godot/npc.gd"], ["NpcBarks.cs", "src/NpcBarks.cs"], ["fr.po", "locale/fr.po"],
  ["Localizable.strings", "locale/Localizable.strings"], ["Strings.resx", "locale/Strings.resx"], ["game.xliff", "locale/game.xliff"],
].map(([name, path]) => ({ path, data: new Uint8Array(fixture(name)) }));

describe("the worker, end to end", () => {
  test("an archive holding every supported format: every file yields extractions, merged as classify merges", async () => {
    expect(new Set(EVERY_FORMAT.map((x) => x.path.slice(x.path.lastIndexOf("."))))).toEqual(new Set(ALLOWED_EXTENSIONS));
    const vocab = projectVocabulary(f.t.app.ctx, f.w.projectId);
    const all: Section[] = [];
    for (const file of EVERY_FORMAT) {
      const sections = extractFile(file.path, decodeText(file.data as Uint8Array)).sections;
      expect({ file: file.path, sections: sections.length > 0 }).toEqual({ file: file.path, sections: true });
      all.push(...sections);
    }
    const expected = classify(all, vocab);

    const before = available();
    const { jobId } = await submitAndUpload(f, EVERY_FORMAT, { userContext: "A cosy fantasy town." });
    const reserved = before - available();
    const queued = (await job(f, jobId)).body;
    expect(queued).toMatchObject({ status: "QUEUED", startedAt: null, completedAt: null, completedFiles: 0 });
    await runWorker(f);
    const d = (await job(f, jobId)).body;
    expect(d).toMatchObject({ status: "COMPLETED", totalFiles: 29, completedFiles: 29, failedFiles: 0, errorMessage: null, committedAt: null });
    expect(d.startedAt).toEqual(expect.any(String));
    expect(d.completedAt).toEqual(expect.any(String));
    for (const file of EVERY_FORMAT) {
      expect({ file: file.path, found: d.extractions.some((e: any) => e.sourceFiles.includes(file.path)) }).toEqual({ file: file.path, found: true });
    }
    expect(d.extractions.length).toBe(expected.length);
    expect(d.extractions.map((e: any) => e.title).sort()).toEqual(expected.map((c) => c.title).sort());
    // Copies merge into one extraction listing both files, one step more confident.
    const copy = d.extractions.find((e: any) => e.sourceFiles.includes("docs/lore-copy.markdown"));
    expect(copy.sourceFiles).toEqual(["docs/lore.md", "docs/lore-copy.markdown"]);
    for (const e of d.extractions) {
      // The spec's seven fields, plus the review fields.
      expect(Object.keys(e).sort()).toEqual(["confidence", "contentPreview", "group", "id", "kind", "location", "reasons", "sourceFiles", "speakers", "tags", "title", "variants"]);
      expect(e.confidence).toBeGreaterThanOrEqual(0);
      expect(e.confidence).toBeLessThanOrEqual(1);
      expect([...e.contentPreview].length).toBeLessThanOrEqual(200);
      for (const t of e.tags) expect(vocab.tags).toContain(t);
      if (e.location !== null) expect(vocab.locations).toContain(e.location);
    }
    expect(d.extractions.some((e: any) => e.location === "Rusty Tankard")).toBe(true);
    expect(d.extractions.some((e: any) => e.tags.includes("tavern"))).toBe(true);
    // Extractor skips (too short, code only …) are reported with their file.
    expect(d.skippedContent.length).toBeGreaterThan(0);
    for (const s of d.skippedContent) expect(Object.keys(s).sort()).toEqual(["reason", "section", "sourceFile"]);

    // Credits: settled to 1 microcredit per byte scanned, the rest refunded.
    const bytes = EVERY_FORMAT.reduce((s, x) => s + x.data.length, 0);
    expect(d.actualCredits).toBe(bytes / 1e6);
    expect(d.estimatedCredits * 1e6).toBe(reserved);
    expect(Math.round(d.creditAdjustment * 1e6)).toBe(reserved - bytes);
    expect(d.adjustmentMessage).toMatch(/refunded/);
    expect(before - available()).toBe(bytes);
    // The archive is gone once processed.
    expect(existsSync(uploadPath(f.t.app.config, jobId))).toBe(false);
  });

  test("a job with thousands of extractions: the detail streams every one, in order, in the detail schema", async () => {
    const WORDS = ["river", "lantern", "harbour", "ember", "willow", "raven", "copper", "thistle", "marsh", "beacon", "cinder", "hollow"];
    const line = (i: number) => Array.from({ length: 9 }, (_, k) => WORDS[Math.floor(i / 12 ** (k % 4)) % 12]).join(" ") + ` tale number ${i}`;
    const csv = ["id,speaker,line", ...Array.from({ length: 2_600 }, (_, i) => `${i},Speaker ${i},"${line(i)} of the town and its long memory"`)].join("\n");
    const { jobId } = await submitAndUpload(f, [{ path: "data/many.csv", data: new TextEncoder().encode(csv) }]);
    await runWorker(f);
    const res = await f.t.app.handle(new Request(`http://localhost/v1/scanner/jobs/${jobId}`, { headers: { authorization: `Bearer ${f.w.keys.editor}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = JSON.parse(await res.text());
    expect(Value.Check(JobDetailResponse, body)).toBe(true);
    expect(body.status).toBe("COMPLETED");
    expect(body.extractions.length).toBeGreaterThan(2_000); // several pages of 1,000
    expect(body).toEqual(getJobDetail(f.t.app.ctx as any, f.w.projectId, jobId));
    expect(new Set(body.extractions.map((e: any) => e.id)).size).toBe(body.extractions.length);
    // Another project's key still gets the plain JSON error, before any byte is streamed.
    expect(await job(f, jobId, f.other.keys.editor)).toMatchObject({ status: 403, body: { error: "Access denied" } });
  });

  test("duplicates merge across files: equal text, or the same title with near-identical words; others stay apart", async () => {
    const long = "Garrick has kept the Rusty Tankard for thirty winters, and every traveller on the river road knows his dark porter, his loud laugh and the ledger of town gossip he keeps under the counter beside the old brass bell.";
    const files = [
      { path: "a/garrick.md", data: `# Garrick\n\n${long}\n` },
      // one word changed: same title, Jaccard ≥ 0.9
      { path: "b/garrick.md", data: `# Garrick\n\n${long.replace("thirty", "forty")}\n` },
      // the same text under another title: equal text
      { path: "c/innkeeper.md", data: `# The Innkeeper\n\n${long}\n` },
      // same title, different story
      { path: "d/garrick.md", data: "# Garrick\n\nA different Garrick entirely: a mercenary captain from the northern passes who sells maps of the abbey ruins to anyone foolish enough to pay.\n" },
    ];
    const { jobId } = await submitAndUpload(f, files);
    await runWorker(f);
    const d = (await job(f, jobId)).body;
    expect(d.extractions.map((e: any) => e.sourceFiles)).toEqual([["a/garrick.md", "b/garrick.md", "c/innkeeper.md"], ["d/garrick.md"]]);
    const single = classifyOne(files[0]);
    expect(d.extractions[0].confidence).toBeCloseTo(Math.min(1, single + 0.1), 3);
  });

  test("archive attacks are rejected per file with a reason; the rest of the job is processed", async () => {
    const good = { path: "lore/good.md", data: LORE.md };
    const innerZip = zipOf([{ path: "x.md", data: "inner" }]);
    const ratioBomb = deflateZeros(2 * 1024 * 1024);
    const entries = [
      { path: "lore/good.md", data: LORE.md },
      { path: "lore/swapped.md", data: "tampered content of the file" },
      { path: "lore/unlisted.md", data: LORE.txt },
      { path: "../escape.md", data: LORE.txt },
      { path: "lore/link.md", data: "/etc/passwd", symlink: true },
      { path: "lore/secret.md", data: "ciphertext", encrypted: true },
      { path: "lore/renamed.json", data: innerZip },
      { path: "lore/bomb.txt", data: "a small kernel", declaredSize: 60 * 1024 * 1024 },
      { path: "lore/ratio.txt", data: "", raw: ratioBomb },
    ];
    const zip = buildZip(entries);
    const entry = (path: string, data: string | Uint8Array) => manifestOf([{ path, data }])[0];
    const manifest = [
      entry("lore/good.md", LORE.md),
      entry("lore/swapped.md", "the original content"),
      { ...entry("lore/swapped.md", "x"), relativePath: "lore/swapped.md", sizeBytes: "tampered content of the file".length, contentHash: sha256Hex("the original content") },
      entry("lore/link.md", "/etc/passwd"),
      entry("lore/secret.md", "ciphertext"),
      entry("lore/renamed.json", innerZip),
      { filename: "bomb.txt", relativePath: "lore/bomb.txt", sizeBytes: 60 * 1024 * 1024, contentHash: "0".repeat(64) },
      { filename: "ratio.txt", relativePath: "lore/ratio.txt", sizeBytes: ratioBomb.size, contentHash: "0".repeat(64) },
      entry("lore/never-uploaded.md", LORE.txt),
    ].filter((m, i) => i !== 1);
    const before = available();
    const { jobId } = await submitAndUpload(f, [good], { zip, manifest });
    await runWorker(f);
    const d = (await job(f, jobId)).body;
    expect(d.status).toBe("COMPLETED");
    expect(d.totalFiles).toBe(8);
    expect(d.completedFiles).toBe(1);
    expect(d.failedFiles).toBe(7);
    const reasons = Object.fromEntries(d.skippedContent.map((s: any) => [s.sourceFile, s.reason]));
    expect(reasons).toMatchObject({
      "lore/swapped.md": "content hash does not match manifest",
      "lore/unlisted.md": "not listed in manifest",
      "../escape.md": "unsafe path",
      "lore/link.md": "symbolic link",
      "lore/secret.md": "encrypted entry",
      "lore/renamed.json": "nested archive",
      "lore/never-uploaded.md": MISSING_FROM_ARCHIVE,
    });
    expect(reasons["lore/bomb.txt"]).toMatch(/^decompression bomb: declared size/);
    expect(reasons["lore/ratio.txt"]).toMatch(/^decompression bomb: compression ratio/);
    expect(d.extractions.map((e: any) => e.sourceFiles)).toEqual([["lore/good.md"]]);
    // Only the accepted bytes are charged.
    expect(d.actualCredits).toBe(LORE.md.length / 1e6);
    expect(before - available()).toBe(LORE.md.length);
  });

  test("a job whose every file fails ends FAILED with the whole reservation refunded", async () => {
    const files = [{ path: "a.md", data: LORE.md }];
    const manifest = manifestOf([{ path: "a.md", data: "something else entirely" }]).map((m) => ({ ...m, sizeBytes: LORE.md.length }));
    const before = available();
    const { jobId } = await submitAndUpload(f, files, { manifest });
    expect(available()).toBeLessThan(before);
    await runWorker(f);
    const d = (await job(f, jobId)).body;
    expect(d).toMatchObject({ status: "FAILED", completedFiles: 0, failedFiles: 1, errorMessage: ALL_FILES_FAILED, actualCredits: 0, extractions: [] });
    expect(d.creditAdjustment).toBe(d.estimatedCredits);
    expect(d.completedAt).toEqual(expect.any(String));
    expect(available()).toBe(before);
  });

  test("an archive that is unreadable by the time it is processed fails the job, refunded", async () => {
    const before = available();
    const { jobId } = await submitAndUpload(f, [{ path: "a.md", data: LORE.md }]);
    writeFileSync(uploadPath(f.t.app.config, jobId), "truncated garbage");
    await runWorker(f);
    const d = (await job(f, jobId)).body;
    expect(d.status).toBe("FAILED");
    expect(d.errorMessage).toMatch(/^The archive could not be read/);
    expect(available()).toBe(before);
  });

  test("progress is written per file: a poll during processing sees it move", async () => {
    const files = Array.from({ length: 40 }, (_, i) => ({ path: `lore/f${i}.md`, data: `# Chapter ${i}\n\n${LORE.md} Chapter ${i} tells of year ${1000 + i}.` }));
    const { jobId } = await submitAndUpload(f, files);
    const seen: number[] = [];
    let done = false;
    const run = runWorker(f).then(() => (done = true));
    while (!done) {
      const b = (await job(f, jobId)).body;
      if (b.status === "PROCESSING") seen.push(b.completedFiles);
      await new Promise((r) => setImmediate(r));
    }
    await run;
    expect(seen.some((n) => n > 0 && n < 40)).toBe(true);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect((await job(f, jobId)).body).toMatchObject({ status: "COMPLETED", completedFiles: 40 });
  });
});
