import { describe, expect, test } from "bun:test";
import type { GenerateRequest } from "../../src/generation/types.ts";
import { replyContext, scripted, turnRequest } from "../support/scriptedTurn.ts";
import { generateReply, GUARD_POLICY, type GuardPolicy } from "../../src/npc/replies/generateReply.ts";

const ctx = replyContext({
  playerLine: "Good evening! My name is Corra Vell, and I have just come up from Brenn on foot.",
  mindName: "Idris Vane",
  structuralLines: ["You are Idris Vane, Keeper of the Cindervale Incline, a character in a game."],
  noteNames: ["Riding the Incline"],
});

const req = (maxTokens = 64): GenerateRequest => turnRequest({ maxTokens });
const THIRD = "Idris Vane tells travellers the car leaves at dawn.";
const CLEAN = "The car leaves at dawn, and the fare is two brass bits.";
const more: GuardPolicy = { tries: 4, budgetShare: 1, resampleTemperature: 0.3 };

describe("the reply guard's sampling policy", () => {
  test("with more tries, samples stopped early are cheap: it keeps sampling (cooler after the first) until one is clean", async () => {
    const { llm, calls } = scripted([THIRD, THIRD, THIRD, CLEAN]);
    const { result, report } = await generateReply(llm, req(), ctx, more);
    expect(calls.map((c) => [c.seed, c.temperature])).toEqual([[40, 0.7], [41, 0.3], [42, 0.3], [43, 0.3]]);
    expect(report.attempts.map((a) => a.early)).toEqual([true, true, true, false]);
    expect(report.chosen).toBe(4);
    expect(result.text).toBe(CLEAN);
  });

  test("never more than `tries` samples; with none clean, the least bad is returned (a stopped one has no text)", async () => {
    const { llm, calls } = scripted([THIRD, THIRD, THIRD, THIRD, CLEAN]);
    const { result, report } = await generateReply(llm, req(), ctx, more);
    expect(calls).toHaveLength(4);
    // the last try is not judged while it streams, so it has its text: that is the reply
    expect(report.chosen).toBe(4);
    expect(result.text).toBe(THIRD);
  });

  test("a cooler resample never heats a cool turn: a mind at 0.2 resamples at 0.2", async () => {
    const { llm, calls } = scripted([THIRD, CLEAN]);
    await generateReply(llm, { ...req(), temperature: 0.2 }, ctx, more);
    expect(calls.map((c) => c.temperature)).toEqual([0.2, 0.2]);
  });

  test("the token budget: once the rejected samples cost a reply's cap, the next sample is the last", async () => {
    // The echo is told after its sixth word: each rejected sample costs 6 tokens.
    const line = "The road up from the river was long and the wind was cold and wet all the way.";
    const c = { ...ctx, playerLine: line };
    const { llm, calls } = scripted([line, line, line, CLEAN]);
    const { result, report } = await generateReply(llm, req(12), c, more);
    // 6 + 6 tokens rejected ≥ the 12-token budget: the third sample is the last (a fourth would have been clean)
    expect(calls).toHaveLength(3);
    expect(report.attempts.map((a) => a.problems[0]?.kind)).toEqual(["echo", "echo", "echo"]);
    expect(report.attempts.map((a) => a.early)).toEqual([true, true, false]);
    expect(result.text.startsWith("The road up from the river")).toBe(true);
    // with room for more, the fourth is drawn
    const roomy = scripted([line, line, line, CLEAN]);
    expect((await generateReply(roomy.llm, req(64), c, more)).result.text).toBe(CLEAN);
  });

  test("greedy and grammar-constrained requests are still sampled once, whatever the policy", async () => {
    const g = scripted([THIRD, CLEAN]);
    await generateReply(g.llm, { ...req(), temperature: 0 }, ctx, more);
    expect(g.calls).toHaveLength(1);
    const j = scripted([THIRD, CLEAN]);
    await generateReply(j.llm, { ...req(), jsonSchema: { type: "object" } }, ctx, more);
    expect(j.calls).toHaveLength(1);
  });

  test("the default policy", () => {
    expect(GUARD_POLICY.tries).toBeGreaterThanOrEqual(2);
  });
});
