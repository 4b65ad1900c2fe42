import { describe, expect, test } from "bun:test";
import { repetition } from "../../src/npc/replies/detectors.ts";
import { generateReply } from "../../src/npc/replies/generateReply.ts";
import { loopCut } from "../../src/npc/replies/loopCut.ts";
import { sentenceEnds } from "../../src/npc/replies/sentences.ts";
import { replyContext, scripted, turnRequest } from "../support/scriptedTurn.ts";

const ctx = replyContext({
  playerLine: "When do the town gates close?",
  mindName: "Ilsa Hesk",
  noteNames: ["The Town Gates"],
  maxSentences: 3,
});

const req = turnRequest({ conversationKey: "c", messages: [{ role: "user", content: "When do the town gates close?" }], seed: 1 });

/** What the cut leaves of a reply (the whole reply when nothing is cut). */
const cut = (text: string) => {
  const at = loopCut(text, sentenceEnds(text));
  return at === null ? text : text.slice(0, at).trimEnd();
};

describe("a loop in a reply's tail is cut at the sentence it starts in", () => {
  // Shaped like SmolLM2's first samples on the tuning worlds: an answer, then a sentence that goes round.
  const table: [string, string][] = [
    [
      "The town gates close at the tenth bell. The captain has twice voted to end the watch, and the captain has twice voted to end the watch, and the",
      "The town gates close at the tenth bell.",
    ],
    // the repeat spans two sentences: cut where the second one starts
    ["The berth fee is three pennies a night. The berth fee is three pennies, paid to Odile.", "The berth fee is three pennies a night."],
    // three words three times, from the third sentence on
    ["Aye. The gates shut at dusk. The old bell, the old bell, the old bell rings.", "Aye. The gates shut at dusk."],
    // nothing repeats: nothing is cut
    ["The gates close at the tenth bell. The watch opens them at dawn.", "The gates close at the tenth bell. The watch opens them at dawn."],
  ];
  for (const [reply, want] of table)
    test(JSON.stringify(reply.slice(0, 60)), () => {
      expect(cut(reply)).toBe(want);
      expect(repetition(cut(reply))).toBeNull();
    });

  test("a loop inside the first sentence leaves nothing clean to keep: not cut to a clean reply", () => {
    const reply = "The great flood of 1852, the great flood, the great flood of 1889, that of 1911.";
    expect(repetition(cut(reply))).not.toBeNull();
  });
});

describe("the guard keeps a sample whose loop is only its tail", () => {
  test("cut, not resampled", async () => {
    const { llm, calls } = scripted([
      "The town gates close at the tenth bell. The captain has twice voted to end the watch, and the captain has twice voted to end the watch, and the",
      "I do not know.",
    ]);
    const { result, report } = await generateReply(llm, req, ctx);
    expect(calls).toHaveLength(1);
    expect(result.text).toBe("The town gates close at the tenth bell.");
    expect(report.stoppedBy).toBe("loop");
    expect(report.attempts[0].problems).toEqual([]);
  });

  test("a loop from the first words is still sent back for another sample", async () => {
    const { llm, calls } = scripted(["The gates close at the bell, the gates close at the bell.", "At the tenth bell."]);
    const { result, report } = await generateReply(llm, req, ctx);
    expect(calls).toHaveLength(2);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["repetition"]);
    expect(result.text).toBe("At the tenth bell.");
  });
});
