import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { endIdleExtractionThread, returnExtractionThread, takeExtractionThread, warmExtractionThread } from "../../../src/scanner/worker/idleThread.ts";
import { job, LORE, runWorker, scanFixture, submitAndUpload, type FileSpec, type ScanFixture } from "./scanSupport.ts";

let f: ScanFixture;
beforeAll(async () => {
  f = await scanFixture();
});
afterAll(() => f.close());

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "..", "extract", "fixtures", name)));

/** A scan's extractions as a reviewer sees them (ids and times aside). */
async function scan(files: FileSpec[]) {
  const { jobId } = await submitAndUpload(f, files);
  await runWorker(f);
  const d = (await job(f, jobId)).body;
  expect(d.status).toBe("COMPLETED");
  return {
    extractions: d.extractions.map((e: any) => ({ title: e.title, content: e.content, confidence: e.confidence, sourceFiles: e.sourceFiles, tags: e.tags })),
    skipped: d.skippedContent,
  };
}

const FIRST: FileSpec[] = [
  { path: "lore/founding.md", data: LORE.md },
  { path: "data/items.yaml", data: fixture("items.yaml") },
  { path: "locale/fr.po", data: fixture("fr.po") },
];
const SECOND: FileSpec[] = [
  { path: "notes/mill.txt", data: LORE.txt },
  { path: "data/npcs.json", data: fixture("npcs.json") },
  { path: "dialogue/tavern.ink", data: fixture("tavern.ink") },
  { path: "Assets/Garrick.asset", data: fixture("Garrick.asset") },
];

describe("the extraction thread kept between scans", () => {
  test("a scan on a thread that served another scan gives what a fresh thread gives", async () => {
    endIdleExtractionThread();
    await scan(FIRST);
    const reused = await scan(SECOND);
    endIdleExtractionThread();
    const fresh = await scan(SECOND);
    expect(reused.extractions.length).toBeGreaterThan(0);
    expect(reused).toEqual(fresh);
  });

  test("one thread waits between scans; a second taken at once is another, and ended when given back", () => {
    endIdleExtractionThread();
    warmExtractionThread();
    const a = takeExtractionThread();
    const b = takeExtractionThread();
    expect(b).not.toBe(a);
    returnExtractionThread(a);
    returnExtractionThread(b);
    // `a` waits; `b` found it waiting and was ended.
    const c = takeExtractionThread();
    const d = takeExtractionThread();
    expect(c).toBe(a);
    expect(d).not.toBe(b);
    c.terminate();
    d.terminate();
  });

  test("a waiting thread that failed is not handed to the next scan", async () => {
    await endIdleExtractionThread();
    const broken = new Worker(URL.createObjectURL(new Blob(["throw new Error('the thread did not load');"], { type: "application/javascript" })));
    returnExtractionThread(broken);
    // until its failure has come (a listener added after the waiting thread's own: it has run by then), not a fixed
    // 2 s that a loaded box may not give the thread to fail in
    await new Promise((r) => broken.addEventListener("error", r, { once: true }));
    const next = takeExtractionThread();
    expect(next).not.toBe(broken);
    next.terminate();
  });
});
