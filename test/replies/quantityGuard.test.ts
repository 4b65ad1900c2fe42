import { describe, expect, test } from "bun:test";
import { generateReply, GUARD_POLICY } from "../../src/npc/replies/generateReply.ts";
import { givenNumbers } from "../../src/npc/replies/quantities.ts";
import { replyContext, scripted, turnRequest as req } from "../support/scriptedTurn.ts";

/**
 * What the reply guard does with a sample that states a number its prompt does not hold: what is under test is the
 * guard's choice of samples (the backend says scripted replies; the real model's side is quantityGuardModel.test.ts).
 */
const ctx = replyContext({
  playerLine: "How far is it to Millbrook?",
  mindName: "Garrick Stone",
  structuralLines: ["You are Garrick Stone, keeper of the Rusty Flagon, a character in a game."],
  noteNames: ["The Road"],
  givenNumbers: givenNumbers(["The north road to Millbrook is a day and a half on foot, about forty miles.", "How far is it to Millbrook?"]),
});

const MADE_UP = "It's about 35 miles, a long day's walk.";
const MADE_UP_TOO = "Some 25 miles up the north road.";
const RIGHT = "Forty miles, a day and a half on foot.";
const THIRD_PERSON = "Garrick Stone says it is forty miles.";

describe("the reply guard and made-up numbers", () => {
  test("a sample with a number its prompt does not hold is drawn again, and the clean one returned", async () => {
    const { llm, calls } = scripted([MADE_UP, RIGHT]);
    const { result, report } = await generateReply(llm, req(), ctx);
    expect(calls.map((c) => c.seed)).toEqual([40, 41]);
    expect(report.attempts[0].problems).toEqual([{ kind: "unsupportedQuantity", detail: '"35"' }]);
    expect(report.attempts[1].problems).toEqual([]);
    expect(result.text).toBe(RIGHT);
  });

  test("once a turn: when the resample makes one up too, no third is drawn and the first is returned", async () => {
    const { llm, calls } = scripted([MADE_UP, MADE_UP_TOO, RIGHT]);
    const { result, report } = await generateReply(llm, req(), ctx);
    expect(calls).toHaveLength(2);
    expect(report.attempts.map((a) => a.problems.map((p) => p.kind))).toEqual([["unsupportedQuantity"], ["unsupportedQuantity"]]);
    expect(report.chosen).toBe(1);
    expect(result.text).toBe(MADE_UP);
  });

  test("it is the least bad problem: a made-up number is returned before a slip of character", async () => {
    // the third-person slip is stopped at its opening; the last sample is not judged while it streams
    const { llm, calls } = scripted([THIRD_PERSON, MADE_UP, THIRD_PERSON]);
    const { result, report } = await generateReply(llm, req(), ctx);
    expect(calls).toHaveLength(3);
    expect(report.attempts[1].problems.map((p) => p.kind)).toEqual(["unsupportedQuantity"]);
    expect(result.text).toBe(MADE_UP);
  });

  test("a made-up number beside another problem does not use up the turn's one resample for numbers", async () => {
    // the mind's previous line said again (found when the sample ends, as the number is)
    const both = "Some 25 miles up the north road.";
    const { llm, calls } = scripted([both, MADE_UP, RIGHT]);
    const { result, report } = await generateReply(llm, req(), { ...ctx, previousReply: both });
    expect(report.attempts[0].problems.map((p) => p.kind).sort()).toEqual(["repeatsPrevious", "unsupportedQuantity"]);
    expect(calls).toHaveLength(3);
    expect(result.text).toBe(RIGHT);
  });

  test("the resample is steered from the made-up number's words, never from digits", async () => {
    const eight = scripted(["Eight of them.", RIGHT]);
    await generateReply(eight.llm, req(), ctx);
    expect(eight.calls[1].avoid?.map((a) => a.text)).toContain(" eight");
    const digits = scripted([MADE_UP, RIGHT]);
    await generateReply(digits.llm, req(), ctx);
    expect(digits.calls[1].avoid?.some((a) => /\d/.test(a.text))).toBe(false);
  });

  test("without the prompt's numbers (a context that carries none), or with the check off, nothing is resampled for them", async () => {
    const none = scripted([MADE_UP, RIGHT]);
    expect((await generateReply(none.llm, req(), { ...ctx, givenNumbers: undefined })).result.text).toBe(MADE_UP);
    const off = scripted([MADE_UP, RIGHT]);
    expect((await generateReply(off.llm, req(), ctx, { ...GUARD_POLICY, checkQuantities: false })).result.text).toBe(MADE_UP);
    expect(off.calls).toHaveLength(1);
  });

  test("greedy turns are never resampled for it", async () => {
    const g = scripted([MADE_UP, RIGHT]);
    await generateReply(g.llm, { ...req(), temperature: 0 }, ctx);
    expect(g.calls).toHaveLength(1);
  });

  test("the default policy checks numbers", () => {
    expect(GUARD_POLICY.checkQuantities).toBe(true);
  });
});
