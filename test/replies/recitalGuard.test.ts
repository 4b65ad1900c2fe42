import { describe, expect, test } from "bun:test";
import { generateReply, GUARD_POLICY } from "../../src/npc/replies/generateReply.ts";
import { givenNumbers } from "../../src/npc/replies/quantities.ts";
import { loreSentences } from "../../src/npc/replies/recitedLine.ts";
import { replyContext, scripted, turnRequest as req } from "../support/scriptedTurn.ts";

// On in the product's policy; the tests say so, so that they hold whatever the default becomes.
const ON = { ...GUARD_POLICY, checkRecitals: true };

/**
 * What the reply guard does with a sample that recites a lore sentence that does not answer the question: what is
 * under test is the guard's choice of samples (the backend says scripted replies).
 */
const NOTES = [
  "Millbrook was founded by the miller Osric Dunn. The first building of the town was a grain store.",
  "The town council has five members and meets in the Moot Hall on the last Thursday of each month.",
];
const ctx = replyContext({
  playerLine: "What was the first building in Millbrook?",
  mindName: "Garrick Stone",
  structuralLines: ["You are Garrick Stone, keeper of the Rusty Flagon, a character in a game."],
  noteNames: ["The Founding of Millbrook"],
  givenNumbers: givenNumbers([...NOTES, "What was the first building in Millbrook?"]),
  loreLines: loreSentences(NOTES),
});

const RECITAL = "The town council has five members and meets in the Moot Hall.";
const RECITAL_TOO = "The council meets in the Moot Hall on the last Thursday of each month.";
const RIGHT = "A grain store, the first building of the town.";
const THIRD_PERSON = "Garrick Stone says it was a grain store.";

describe("the reply guard and recited lines", () => {
  test("a sample that recites a note beside the question is drawn again, steered from its words, and the clean one returned", async () => {
    const { llm, calls } = scripted([RECITAL, RIGHT]);
    const { result, report } = await generateReply(llm, req(), ctx, ON);
    expect(calls).toHaveLength(2);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["offTopicRecital"]);
    expect(report.attempts[0].problems[0].detail).toContain("council has five members");
    const avoided = calls[1].avoid?.map((a) => a.text.trim().toLowerCase()) ?? [];
    expect(avoided).toContain("council");
    // never the question's own words: the answer may need them
    expect(avoided).not.toContain("building");
    expect(result.text).toBe(RIGHT);
  });

  test("once a turn: a second recital is not sent back, the first is returned", async () => {
    const { llm, calls } = scripted([RECITAL, RECITAL_TOO, RIGHT]);
    const { result, report } = await generateReply(llm, req(), ctx, ON);
    expect(calls).toHaveLength(2);
    expect(report.chosen).toBe(1);
    expect(result.text).toBe(RECITAL);
  });

  test("a recital is returned before a slip of character", async () => {
    const { llm, calls } = scripted([THIRD_PERSON, RECITAL, THIRD_PERSON]);
    const { result } = await generateReply(llm, req(), ctx, ON);
    expect(calls).toHaveLength(3);
    expect(result.text).toBe(RECITAL);
  });

  test("a sample that answers from its note is not touched", async () => {
    const { llm, calls } = scripted([RIGHT, RECITAL]);
    expect((await generateReply(llm, req(), ctx, ON)).result.text).toBe(RIGHT);
    expect(calls).toHaveLength(1);
  });

  test("without the turn's lore lines, with the check off, or greedy: nothing is resampled for it", async () => {
    const none = scripted([RECITAL, RIGHT]);
    expect((await generateReply(none.llm, req(), { ...ctx, loreLines: undefined }, ON)).result.text).toBe(RECITAL);
    const off = scripted([RECITAL, RIGHT]);
    expect((await generateReply(off.llm, req(), ctx, { ...GUARD_POLICY, checkRecitals: false })).result.text).toBe(RECITAL);
    const greedy = scripted([RECITAL, RIGHT]);
    await generateReply(greedy.llm, { ...req(), temperature: 0 }, ctx, ON);
    expect([none.calls.length, off.calls.length, greedy.calls.length]).toEqual([1, 1, 1]);
  });

  test("the product's policy checks recitals", async () => {
    expect(GUARD_POLICY.checkRecitals).toBe(true);
    const byDefault = scripted([RECITAL, RIGHT]);
    expect((await generateReply(byDefault.llm, req(), ctx)).result.text).toBe(RIGHT);
  });

  test("its once a turn is its own: a made-up number before it does not use it up", async () => {
    const { llm, calls } = scripted(["About 35 miles up the road.", RECITAL, RIGHT]);
    const { result } = await generateReply(llm, req(), ctx, ON);
    expect(calls).toHaveLength(3);
    expect(result.text).toBe(RIGHT);
  });
});
