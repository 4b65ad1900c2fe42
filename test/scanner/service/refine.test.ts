import { afterAll, beforeAll, expect, test } from "bun:test";
import { LlmEngine } from "../../../src/llm/LlmEngine.ts";
import { getProjectBalance } from "../../../src/credits/ledger.ts";
import { processScanJob, projectVocabulary } from "../../../src/scanner/worker/processScanJob.ts";
import { ensureTinyModel } from "../../support/tinyGguf.ts";
import { job, scanFixture, submitAndUpload, type ScanFixture } from "./scanSupport.ts";

// Real llama.cpp on the suite's random-weight tiny model: its output is gibberish under the
// grammar, so this proves the refinement pass is bounded, charged and can only pick the
// project's own tags and locations — not that it improves anything.
let f: ScanFixture;
let llm: LlmEngine;
beforeAll(async () => {
  f = await scanFixture();
  llm = await LlmEngine.load({ modelPath: ensureTinyModel(undefined, { nCtx: 2048 }), threads: 2, parallel: 1, contextSize: 2048 });
}, 120_000);
afterAll(async () => {
  await llm?.dispose();
  await f.close();
});

test("with a chat model, the strongest extractions are refined under a JSON grammar and the tokens are charged", async () => {
  // One extraction: a grammar-constrained generation on the tiny model takes seconds on 2 cores.
  const files = [{ path: "lore/c.md", data: "# The Abbey\n\nThe abbey ruins stand on the hill above the docks, where the monks once kept the town-history archive." }];
  const before = getProjectBalance(f.t.app.ctx, f.w.projectId).available;
  const { jobId } = await submitAndUpload(f, files, { userContext: "Fantasy RPG; the tavern is central." });
  const outcome = await processScanJob({ ...f.t.app.ctx, llm }, jobId);
  expect(outcome).toBe("COMPLETED");
  const d = (await job(f, jobId)).body;
  const vocab = projectVocabulary(f.t.app.ctx, f.w.projectId);
  expect(d.extractions.length).toBe(1);
  for (const e of d.extractions) {
    expect(e.title).toMatch(/[\p{L}\p{N}]/u);
    for (const t of e.tags) expect(vocab.tags).toContain(t);
    if (e.location !== null) expect(vocab.locations).toContain(e.location);
  }
  const row = f.t.app.db.query<{ llm_tokens: number; bytes_processed: number }, [string]>("SELECT llm_tokens, bytes_processed FROM scan_jobs WHERE id = ?").get(jobId)!;
  expect(row.llm_tokens).toBeGreaterThan(0);
  const charged = before - getProjectBalance(f.t.app.ctx, f.w.projectId).available;
  expect(charged).toBeGreaterThan(row.bytes_processed);
  expect(charged).toBeLessThanOrEqual(d.estimatedCredits * 1e6);
  expect(d.actualCredits * 1e6).toBeCloseTo(charged, 3);
  expect(d.adjustmentMessage).toMatch(/model tokens/);
}, 120_000);
