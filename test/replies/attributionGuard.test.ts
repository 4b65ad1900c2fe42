import { describe, expect, test } from "bun:test";
import { generateReply, GUARD_POLICY } from "../../src/npc/replies/generateReply.ts";
import { attributionSources } from "../../src/npc/replies/attribution.ts";
import { givenNumbers } from "../../src/npc/replies/quantities.ts";
import { replyContext, scripted, turnRequest as req } from "../support/scriptedTurn.ts";

/**
 * What the reply guard does with a sample that tells a fact of the wrong person: what is under test is the guard's
 * choice of samples (the backend says scripted replies; the detector's own table is attribution.test.ts).
 */
const PROMPT = [
  "You are Garve Dray, Eel smoker of the Blackreed Smokehouse, a character in a game.\nPeople you know:\n- Nessa Dray: family (Your younger sister)\n- Wick Varrow: friend (The boy runs your errands to the quay)",
  "[Lore]\nAbout Smokehouse Trade: The Blackreed Smokehouse is owned by Audra Pell, who buys the eels at the quay. The smoked eels go upriver on the barge Patience.\n\n[Player]\nWho owns the smokehouse?",
];
const ctx = replyContext({
  playerLine: "Who owns the smokehouse?",
  mindName: "Garve Dray",
  otherNames: ["Nessa Dray", "Wick Varrow"],
  structuralLines: ["You are Garve Dray, Eel smoker of the Blackreed Smokehouse, a character in a game."],
  noteNames: ["Smokehouse Trade"],
  givenNumbers: givenNumbers(PROMPT),
  attribution: attributionSources(PROMPT, ["Nessa Dray", "Wick Varrow"], ["Who owns the smokehouse?"]),
});

const WRONG = "Nessa Dray owns the smokehouse.";
const WRONG_TOO = "Wick owns the Blackreed Smokehouse.";
const RIGHT = "Audra Pell owns the smokehouse, and I keep the fires.";
const MADE_UP = "Audra Pell owns it; she paid 40 marks for it.";

describe("the reply guard and a fact told of the wrong person", () => {
  test("such a sample is drawn again, steered from the name, and the clean one returned", async () => {
    const { llm, calls } = scripted([WRONG, RIGHT]);
    const { result, report } = await generateReply(llm, req(), ctx);
    expect(calls.map((c) => c.seed)).toEqual([40, 41]);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["wrongAttribution"]);
    expect(calls[1].avoid?.map((a) => a.text)).toContain(" Nessa");
    expect(report.attempts[1].problems).toEqual([]);
    expect(result.text).toBe(RIGHT);
  });

  test("once a turn: when the resample does it too, no third is drawn and the first is returned", async () => {
    const { llm, calls } = scripted([WRONG, WRONG_TOO, RIGHT]);
    const { result, report } = await generateReply(llm, req(), ctx);
    expect(calls).toHaveLength(2);
    expect(report.chosen).toBe(1);
    expect(result.text).toBe(WRONG);
  });

  test("it has its own once a turn beside a made-up number's", async () => {
    const { llm, calls } = scripted([WRONG, MADE_UP, RIGHT]);
    const { result } = await generateReply(llm, req(), ctx);
    expect(calls).toHaveLength(3);
    expect(result.text).toBe(RIGHT);
  });

  test("with the check off, or without the prompt's sources, nothing is resampled for it", async () => {
    const off = scripted([WRONG, RIGHT]);
    expect((await generateReply(off.llm, req(), ctx, { ...GUARD_POLICY, checkAttributions: false })).result.text).toBe(WRONG);
    expect(off.calls).toHaveLength(1);
    const none = scripted([WRONG, RIGHT]);
    expect((await generateReply(none.llm, req(), { ...ctx, attribution: undefined })).result.text).toBe(WRONG);
  });

  test("greedy turns are never resampled for it", async () => {
    const g = scripted([WRONG, RIGHT]);
    await generateReply(g.llm, { ...req(), temperature: 0 }, ctx);
    expect(g.calls).toHaveLength(1);
  });
});
