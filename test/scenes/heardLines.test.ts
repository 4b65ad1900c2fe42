import { describe, expect, test } from "bun:test";
import { replyProblems } from "../../src/npc/replies/detectors.ts";
import { heardLines } from "../../src/scenes/heardText.ts";
import type { SceneLineRow } from "../../src/scenes/sceneStore.ts";

const line = (seq: number, mind_id: string | null, text: string): SceneLineRow => ({ seq, mind_id, speaker: mind_id ? "stored name" : "The player", text, created_at: "" });
const names = new Map([["g", "Garrick"], ["e", "Elena"]]);

describe("what a speaker heard", () => {
  test("the player's line alone is the turn's line as it is", () => {
    expect(heardLines([line(1, null, "  Hello there. ")], names, 0, ["Elena"])).toEqual({ text: "Hello there.", earlier: [] });
  });
  test("the last line is the turn's line; what came before goes to the scene block, by name, oldest first", () => {
    const h = heardLines([line(1, null, "Who saw it?"), line(2, "e", "Not me."), line(3, "x", "Nor I.")], names, 2, ["Elena"]);
    expect(h).toEqual({ text: 'stored name says: "Nor I."', earlier: ["(2 earlier lines not followed)", 'The player said: "Who saw it?"', 'Elena said: "Not me."'] });
  });
  test("nothing heard yet: the speaker opens, to those present", () => {
    expect(heardLines([], names, 0, ["Elena", "Bram"]).text).toBe("(Nobody has spoken yet. You start talking, to Elena, Bram.)");
    expect(heardLines([], names, 0, []).text).toBe("(Nobody else is here. You think aloud.)");
  });
  test("a long line is cut", () => {
    expect(heardLines([line(1, "g", "x".repeat(1000))], names, 0, []).text.length).toBeLessThan(420);
  });
});

describe("the reply guard hears the scene", () => {
  const context = (heardLines: string[]) => ({
    playerLine: "Odile, on which days is the fish market held?",
    mindName: "Odile Marsh",
    otherNames: [],
    structuralLines: [],
    narrativeLines: [],
    noteNames: [],
    previousReply: null,
    maxSentences: 3,
    secrets: [],
    heardLines,
  });
  const rows: Array<[string, string, string[], boolean]> = [
    ["another mind's answer repeated word for word", "Odile Marsh is held on Friday for oil, bread, and letters.", ["Odile Marsh is held on Friday for oil, bread, and letters."], true],
    ["most of a heard line in one run", "Well, the market is held on Friday for oil and bread, they say.", ["The market is held on Friday for oil and bread."], true],
    ["an earlier question of the player's, restated as an answer", "On which days is the fish market held? Tuesday.", ["On which days is the fish market held?"], true],
    ["an answer of its own", "Tuesdays and Saturdays, on the north quay.", ["Odile Marsh is held on Friday for oil, bread, and letters."], false],
    ["nothing heard", "Odile Marsh is held on Friday for oil, bread, and letters.", [], false],
  ];
  for (const [name, reply, heard, echo] of rows) {
    test(name, () => {
      expect(replyProblems(reply, context(heard)).some((p) => p.kind === "echo")).toBe(echo);
    });
  }
});
