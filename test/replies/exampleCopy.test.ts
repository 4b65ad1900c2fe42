import { describe, expect, test } from "bun:test";
import { exampleCopy, replyProblems } from "../../src/npc/replies/detectors.ts";
import { earlyProblem } from "../../src/npc/replies/earlyVerdict.ts";
import { generateReply } from "../../src/npc/replies/generateReply.ts";
import { steerAway } from "../../src/npc/replies/steer.ts";
import { exampleLines, TRANSCRIPT_LAYOUT } from "../../src/llm/transcriptTurn.ts";
import { replyContext, scripted, turnRequest } from "../support/scriptedTurn.ts";

// The example exchange a base model reads before the player's line (src/llm/transcriptTurn.ts), and a mind whose
// own texts are about other things: the Saltmarsh lighthouse keeper and the Drowned Lantern.
const known = [
  "The Drowned Lantern: The Drowned Lantern is the tavern on the quay, kept by Mara Quell since the flood.",
  "Castermere: Castermere lies eleven miles up the coast road.",
  "How far is it to Castermere?",
];
const ctx = replyContext({
  playerLine: "How far is it to Castermere?",
  mindName: "Bram Fenwick",
  noteNames: ["The Drowned Lantern", "Castermere"],
  maxSentences: 3,
  example: { lines: exampleLines(TRANSCRIPT_LAYOUT), known },
});

describe("exampleLines: what the example exchange in use says", () => {
  test("its answer and its note's title and text; none for a layout without an example", () => {
    expect(exampleLines(TRANSCRIPT_LAYOUT)).toEqual(["Forty feet, give or take.", "The old well", "The old well behind the house is forty feet deep."]);
    expect(exampleLines({ notes: "sections", player: "section", example: false, oneLine: false })).toEqual([]);
  });
});

// [reply, copied or not] — the copies are the ones Gemma 3 270M returned on the tuning worlds
describe("exampleCopy: the example exchange passed off as the reply", () => {
  const table: [string, boolean][] = [
    ["Forty feet, give or take.", true], // for "How far is it to Castermere?"
    ["The old well.", true], // for "Who owns the Drowned Lantern?"
    ["forty feet give or take", true],
    ["Forty feet.", true],
    ["Forty feet to Castermere.", true], // the example's answer with the question's words around it
    ["Eleven miles to Castermere.", false],
    ["Seven, give or take.", false],
    ["Oh, it's the old well, I'd say.", true], // the note's whole title
    ["The old well behind the house is forty feet deep, they say.", true],
    ["Aye, behind the house is forty feet deep.", true], // a long run of the note
    ["Eleven miles up the coast road.", false],
    ["Eleven miles, give or take.", false], // the example's manner, not its content
    ["Mara Quell keeps it, since the flood.", false],
    ["The house on the quay is old.", false],
    ["Forty feet of rope hang in the tower, and the lamp burns all night.", false],
    ["", false],
  ];
  for (const [reply, want] of table) test(`${want ? "copy" : "fine"}: ${JSON.stringify(reply)}`, () => expect(exampleCopy(reply, ctx) !== null).toBe(want));

  test("a run the mind's own texts hold is the mind's to say (a world with an old well)", () => {
    const well = { ...ctx, example: { lines: ctx.example!.lines, known: [...known, "The old well: The old well at the crossroads has been dry since the drought."] } };
    expect(exampleCopy("The old well.", well)).toBeNull();
    expect(exampleCopy("Forty feet, give or take.", well)).not.toBeNull();
  });

  test("no example in the context: nothing to copy", () => {
    expect(exampleCopy("Forty feet, give or take.", { ...ctx, example: undefined })).toBeNull();
  });

  test("replyProblems reports it as exampleCopy, with the copied words", () => {
    const p = replyProblems("Forty feet, give or take.", ctx).find((x) => x.kind === "exampleCopy");
    expect(p?.detail).toContain('"forty feet give or take"');
  });

  test("judged once a sentence has ended: an opening that may go on is not a copy yet", () => {
    expect(earlyProblem("Forty feet", ctx)).toBeNull();
    expect(earlyProblem("Forty feet.", ctx)?.kind).toBe("exampleCopy");
    expect(earlyProblem("Forty feet, give or take", ctx, true)).toBeNull();
  });

  test("a resample is steered away from the copied words (the ones steering ever pushes: not \"the\" or \"well\")", () => {
    const p = replyProblems("The old well.", ctx).filter((x) => x.kind === "exampleCopy");
    const steered = new Set(steerAway(p, ctx).map((a) => a.text.trim().toLowerCase()));
    expect(steered.has("old")).toBe(true);
    expect(steered.has("the")).toBe(false);
  });
});

describe("the guard resamples a copy of the example", () => {
  test("the copy is sent back and the other sample returned", async () => {
    const { llm, calls } = scripted(["Forty feet, give or take.", "Eleven miles up the coast road."]);
    const { result, report } = await generateReply(llm, turnRequest({ seed: 5 }), ctx);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["exampleCopy"]);
    expect(result.text).toBe("Eleven miles up the coast road.");
    expect(calls[1].avoid?.some((a) => a.text.trim().toLowerCase() === "forty")).toBe(true);
  });
});
