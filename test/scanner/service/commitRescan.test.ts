import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../support/zipBuilder.ts";
import { job, runWorker, scanFixture, submitAndUpload, type ScanFixture } from "./scanSupport.ts";

let f: ScanFixture;
let jobId: string;
let extractions: any[];

const files = [
  {
    path: "lore/tankard.md",
    data: "# The Rusty Tankard\n\nThe Rusty Tankard is the oldest Tavern in Thornhaven. Garrick brews a dark porter there and keeps the Town History ledger behind the bar, the only History of the place anyone trusts.\n",
  },
  {
    path: "lore/docks.md",
    data: "# Night at the Docks\n\nAt the Docks the Smugglers unload their crates after midnight, when the river fog hides the lanterns of the watch.\n",
  },
  { path: "data/items.json", data: JSON.stringify([{ name: "Ember Blade", description: "A sword forged in the abbey ruins that glows faintly when danger is near." }]) },
];

beforeAll(async () => {
  f = await scanFixture();
  jobId = (await submitAndUpload(f, files)).jobId;
  await runWorker(f);
  extractions = (await job(f, jobId)).body.extractions;
});
afterAll(() => f.close());

const commit = (body: unknown) => f.t.call("POST", "/v1/scanner/commit", { key: f.w.keys.editor, body });
const doc = (id: string) => f.t.call("GET", `/v1/lore/documents/${id}`, { key: f.w.keys.editor });

describe("POST /scanner/commit", () => {
  test("the job found the expected candidates", () => {
    expect(extractions.map((e) => e.title)).toEqual(["The Rusty Tankard", "Night at the Docks", "Ember Blade"]);
    expect(extractions[0]).toMatchObject({ tags: ["history", "tavern", "town-history"], location: "Rusty Tankard" });
    expect(extractions[1]).toMatchObject({ tags: ["smugglers"], location: "Docks" });
  });

  test("202 with PENDING documents carrying the full text, the project's tags and the location; unknown ids ignored", async () => {
    const r = await commit({ jobId, extractionIds: [extractions[0].id, "ext_unknown", extractions[1].id] });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ committed: 2, documentIds: [expect.stringMatching(/^doc_/), expect.stringMatching(/^doc_/)] });
    const d0 = (await doc(r.body.documentIds[0])).body.document;
    expect(d0).toMatchObject({ name: "The Rusty Tankard", status: "PENDING", content: files[0].data.split("\n\n")[1].trim() });
    expect(d0.tags.map((t: any) => (typeof t === "string" ? t : t.name)).sort()).toEqual(["history", "tavern", "town-history"]);
    expect(JSON.stringify(d0)).toContain(f.w.locations.tankard);
    const d1 = (await doc(r.body.documentIds[1])).body.document;
    expect(JSON.stringify(d1)).toContain(f.w.locations.docks);
    expect((await job(f, jobId)).body.committedAt).toEqual(expect.any(String));
  });

  test("committing the same extraction again returns its document instead of a second one", async () => {
    const count = () => f.t.app.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM documents WHERE project_id = ?").get(f.w.projectId)!.n;
    const first = await commit({ jobId, extractionIds: [extractions[2].id] });
    const n = count();
    const again = await commit({ jobId, extractionIds: [extractions[2].id, extractions[2].id, extractions[0].id] });
    expect(again.status).toBe(202);
    expect(again.body.documentIds[0]).toBe(first.body.documentIds[0]);
    expect(again.body.committed).toBe(2);
    expect(count()).toBe(n);
    // Concurrent commits of the same extraction still make one document.
    const [a, b] = await Promise.all([commit({ jobId, extractionIds: [extractions[1].id] }), commit({ jobId, extractionIds: [extractions[1].id] })]);
    expect(a.body.documentIds).toEqual(b.body.documentIds);
    expect(count()).toBe(n);
  });

  test("a tag deleted since the scan is dropped, the document is still created", async () => {
    const second = (await submitAndUpload(f, [{ path: "lore/smugglers.md", data: files[1].data.replace("Night", "Fog") }])).jobId;
    await runWorker(f);
    const ex = (await job(f, second)).body.extractions[0];
    expect(ex.tags).toEqual(["smugglers"]);
    f.t.app.db.query("DELETE FROM tags WHERE id = ?").run(f.w.tags.smugglers);
    const r = await commit({ jobId: second, extractionIds: [ex.id] });
    expect(r.status).toBe(202);
    expect((await doc(r.body.documentIds[0])).body.document.tags).toEqual([]);
  });
});

describe("POST /scanner/rescan", () => {
  const rescan = (body: unknown, key = f.w.keys.editor) => f.t.call("POST", "/v1/scanner/rescan", { key, body });

  test("against the latest completed job: changed, added, deleted, unchanged", async () => {
    // The latest completed job is the one-file job of the previous test.
    const r0 = await rescan({ files: [{ filename: "lore/smugglers.md", contentHash: sha256Hex(files[1].data.replace("Night", "Fog")) }] });
    expect(r0.body).toEqual({ changed: [], added: [], deleted: [], unchanged: ["lore/smugglers.md"] });

    f.t.clock.advance(1000);
    const latest = (await submitAndUpload(f, files)).jobId;
    await runWorker(f);
    expect((await job(f, latest)).body.status).toBe("COMPLETED");
    const r = await rescan({
      files: [
        { filename: "lore/tankard.md", contentHash: sha256Hex(files[0].data) },
        { filename: "lore/docks.md", contentHash: sha256Hex("edited") },
        { filename: "lore/new.md", contentHash: sha256Hex("new") },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ changed: ["lore/docks.md"], added: ["lore/new.md"], deleted: ["data/items.json"], unchanged: ["lore/tankard.md"] });
    // Files named by their manifest filename match too; hashes compare case-insensitively.
    const byName = await rescan({ files: [{ filename: "items.json", contentHash: sha256Hex(files[2].data).toUpperCase() }] });
    expect(byName.body).toEqual({ changed: [], added: [], deleted: ["lore/tankard.md", "lore/docks.md"], unchanged: ["items.json"] });
  });

  test("no completed job yet: everything is added; a failed or pending job is not a baseline", async () => {
    const r = await rescan({ files: [{ filename: "a.md", contentHash: sha256Hex("a") }] }, f.other.keys.editor);
    expect(r.body).toEqual({ changed: [], added: ["a.md"], deleted: [], unchanged: [] });
  });

  test("invalid file metadata → 400 Invalid request", async () => {
    for (const body of [{}, { files: [{ filename: "a.md" }] }, { files: [{ filename: "a.md", contentHash: "xyz" }] }, { files: [{ filename: "", contentHash: sha256Hex("a") }] }]) {
      const r = await rescan(body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("Invalid request");
    }
    const dup = await rescan({ files: [{ filename: "a.md", contentHash: sha256Hex("a") }, { filename: "a.md", contentHash: sha256Hex("b") }] });
    expect(dup).toMatchObject({ status: 400, body: { error: "Invalid request" } });
    expect((await rescan({ files: [] }, null as never)).status).toBe(401);
  });
});
