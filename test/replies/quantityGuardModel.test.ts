import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { importPack } from "../../src/packs/importPack.ts";
import { prepareTurn, type PreparedTurn } from "../../src/npc/prepareTurn.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { turnGuard } from "../../src/npc/replies/turnGuard.ts";
import { generateReply, GUARD_POLICY, type GuardedReply, type GuardPolicy } from "../../src/npc/replies/generateReply.ts";
import { unsupportedQuantity } from "../../src/npc/replies/quantities.ts";
import type { GenerationBackend } from "../../src/generation/types.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";

/**
 * The guard's number check on real llama.cpp: the tiny random-weight GGUF the suite writes, its vocabulary given a
 * few number words, says numbers often and none of them on purpose. What it says differs from CPU to CPU, so every
 * assertion is a property of whatever it said: a returned reply is flagged exactly when it states a number the
 * prompt does not hold, a made-up number alone sends a turn back at most once, and the check is off when asked.
 * The same on the local engine and on a remote pool (a real llama-server), since the guard sits above both.
 */

setDefaultTimeout(600_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048, extraWords: ["▁seven", "▁eight", "▁nine", "▁twelve", "▁forty", "▁miles", "▁crowns", "▁days"] });
const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/replies/quantityGuardModel.test.ts (the number check on a remote pool)");
const PACK = {
  project: { name: "Numbers" },
  tags: [{ name: "road" }],
  minds: [{ key: "keeper", entityName: "Garrick Stone", personality: "Gruff but fair.", knowledgeTags: ["road"] }],
  documents: [
    { key: "road", name: "The North Road", tags: ["road"], content: "The north road to Millbrook is forty miles, a day and a half on foot. The watch that guards it has seven members and was founded in 1203." },
  ],
};
const ASK = "How far is it to Millbrook? I have 17 crowns for the journey.";
const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);

async function preparedTurn(t: TestApp): Promise<PreparedTurn> {
  const r = importPack(t.app.ctx as any, PACK as any, {});
  await t.app.scheduler.trigger("indexer");
  return prepareTurn(t.app.ctx, r.projectId, validateInteract({ text: ASK, entityMindId: (r.ids as any).minds.keeper, playerId: "p1" }));
}

async function turns(gen: GenerationBackend, p: PreparedTurn, policy: GuardPolicy): Promise<GuardedReply[]> {
  const out: GuardedReply[] = [];
  for (const seed of SEEDS)
    out.push(await generateReply(gen, { conversationKey: `q-${seed}`, messages: p.messages, maxTokens: 12, minTokens: 1, temperature: 1, seed }, turnGuard(p, ASK), policy));
  return out;
}

const kinds = (r: GuardedReply, i: number) => r.report.attempts[i].problems.map((p) => p.kind);
const numberOnly = (r: GuardedReply, i: number) => kinds(r, i).length > 0 && kinds(r, i).every((k) => k === "unsupportedQuantity");

/** What holds whatever the model said. */
function checkProperties(replies: GuardedReply[], given: number[]): void {
  let found = 0;
  for (const r of replies) {
    const chosen = r.report.attempts[r.report.chosen - 1];
    // The returned reply is flagged exactly when it states a number the prompt does not hold.
    expect(chosen.problems.some((p) => p.kind === "unsupportedQuantity")).toBe(unsupportedQuantity(r.result.text, given) !== null);
    const n = r.report.attempts.length;
    // A sample with a made-up number alone is followed by another at most once a turn ...
    expect(r.report.attempts.slice(0, n - 1).filter((_, i) => numberOnly(r, i)).length).toBeLessThanOrEqual(1);
    // ... and the first one always is (the seed after it).
    if (numberOnly(r, 0)) expect(r.report.attempts[1]?.seed).toBe(r.report.attempts[0].seed + 1);
    // A clean sample, when there is one, is the reply.
    if (r.report.attempts.some((a) => a.problems.length === 0)) expect(chosen.problems).toEqual([]);
    if (r.report.attempts.some((a) => a.problems.some((p) => p.kind === "unsupportedQuantity"))) found++;
  }
  // The tiny model says a digit or a number word in most samples: over ten seeds some are made up.
  expect(found).toBeGreaterThan(0);
}

function checkOff(replies: GuardedReply[]): void {
  for (const r of replies) expect(r.report.attempts.flatMap((a) => a.problems).some((p) => p.kind === "unsupportedQuantity")).toBe(false);
}

describe("the number check on the local engine", () => {
  let t: TestApp;
  let p: PreparedTurn;
  beforeAll(async () => {
    t = await createTestApp({ model: MODEL, embeddingModel: "hashing", parallel: 1, contextSize: 2048, maxReplyTokens: 12, threads: 1 });
    p = await preparedTurn(t);
  }, 180_000);
  afterAll(() => t?.close());

  test("what the mind was given is its prompt and the player's line: the note's numbers in words and digits, and the player's", () => {
    const given = turnGuard(p, ASK).context.givenNumbers!;
    for (const n of [40, 0.5, 7, 1203, 17]) expect(given).toContain(n);
    expect(given).not.toContain(35);
  });

  test("each turn's samples, as the model said them, are checked and resampled by the rule", async () => {
    checkProperties(await turns(t.app.ctx.generation!, p, GUARD_POLICY), turnGuard(p, ASK).context.givenNumbers!);
  });

  test("with the check off, no sample is flagged for a number", async () => {
    checkOff(await turns(t.app.ctx.generation!, p, { ...GUARD_POLICY, checkQuantities: false }));
  });
});

(BIN ? describe : describe.skip)("the number check on a remote pool (real llama-server)", () => {
  let server: LlamaServer;
  let t: TestApp;
  let p: PreparedTurn;
  beforeAll(async () => {
    server = await startLlamaServer({ binary: BIN!, model: MODEL, parallel: 1, slotContext: 2048, threads: 1 });
    t = await createTestApp({
      generation: "remote",
      backends: [{ url: server.url, model: "tiny", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 60_000, kind: "llama-server" }],
      embeddingModel: "hashing",
      contextSize: 2048,
      maxReplyTokens: 12,
    });
    p = await preparedTurn(t);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  test("the same rule on the remote path", async () => {
    checkProperties(await turns(t.app.ctx.generation!, p, GUARD_POLICY), turnGuard(p, ASK).context.givenNumbers!);
    checkOff(await turns(t.app.ctx.generation!, p, { ...GUARD_POLICY, checkQuantities: false }));
  });
});
