import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { processScanJob, projectVocabulary } from "../../src/scanner/worker/processScanJob.ts";
import { job, scanFixture, submitAndUpload, type ScanFixture } from "../scanner/service/scanSupport.ts";
import { REAL_THREADS, realFixtures } from "./realFixtures.ts";

// The scanner's refinement pass on a real instruct model under its JSON grammar: valid titles, tags from the project only.
const fx = realFixtures();

const FILES = [
  { path: "lore/tankard.md", data: "# the_tankard_v2\n\nThe Rusty Tankard is the oldest tavern in town. Garrick brews a dark porter there and serves mutton stew by the fire." },
  { path: "lore/history.md", data: "# notes_03\n\nThornhaven was founded by river traders. The old bridge burned in the year of ash and was rebuilt in stone." },
  { path: "lore/tunnel.md", data: "# misc\n\nSmugglers carry brandy through a tunnel that runs from the tavern cellar down to the docks at night." },
];
const STOP = new Set(["the", "and", "was", "that", "from", "there", "down", "runs", "with", "this", "town"]);
const words = (s: string) => new Set((s.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((x) => !STOP.has(x)));

describe.skipIf(!fx)("scanner refinement on real weights (SmolLM2-135M-Instruct)", () => {
  let f: ScanFixture;
  let llm: LlmEngine;
  beforeAll(async () => {
    f = await scanFixture();
    llm = await LlmEngine.load({ modelPath: fx!.smol, threads: REAL_THREADS, parallel: 1, contextSize: 2048 });
  }, 120_000);
  afterAll(async () => {
    await llm?.dispose();
    await f?.close();
  });

  // Every assertion is a property of any sample (the JSON grammar allows only the project's tags and locations and
  // 120-character titles, and a title without a letter or digit keeps the heuristic one), so no CPU's draw can fail
  // it; whether a title is useful depends on the draw and is reported, not asserted.
  test("each section gets a valid title and only the project's tags; usefulness reported", async () => {
    const { jobId } = await submitAndUpload(f, FILES, { userContext: "Fantasy RPG town lore." });
    expect(await processScanJob({ ...f.t.app.ctx, llm }, jobId)).toBe("COMPLETED");
    const d = (await job(f, jobId)).body;
    const vocab = projectVocabulary(f.t.app.ctx, f.w.projectId);
    expect(d.extractions.length).toBe(FILES.length);
    const useful: string[] = [];
    for (const e of d.extractions) {
      const source = FILES.find((x) => e.sourceFiles.includes(x.path))!;
      expect(source).toBeDefined();
      expect(e.title).toMatch(/[\p{L}\p{N}]/u);
      expect(e.title.length).toBeLessThanOrEqual(120);
      // Useful: the title names something the text is about (reported: a 135M model is not held to it).
      const shared = [...words(e.title)].filter((x) => words(source.data.split("\n\n")[1]).has(x));
      useful.push(`${shared.length ? "✓" : "✗"} ${JSON.stringify(e.title)}`);
      for (const t of e.tags) expect(vocab.tags).toContain(t);
      if (e.location !== null) expect(vocab.locations).toContain(e.location);
    }
    console.log(`[realmodel] scanner titles: ${useful.join(", ")}`);
  }, 1_800_000);
});
