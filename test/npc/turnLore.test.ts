import { describe, expect, test } from "bun:test";
import { turnLoreCandidates } from "../../src/npc/prompt/turnLore.ts";

// Which of a turn's hits (best first) become its [Lore] notes: what is new to the conversation, and the focus
// note (the best hit next to the player's line even when the mind's static prompt carries it), never a kept secret twice.
const hit = (id: string, secret = false) => ({ chunkId: id, documentId: `d-${id}`, ...(secret ? { secret: true } : {}) });
const ids = (xs: { chunkId: string }[]) => xs.map((x) => x.chunkId);
const none = new Set<string>();

describe("turnLoreCandidates", () => {
  test.each([
    ["first turn, nothing shared: every hit", ["a", "b", "c"], [], [], true, ["a", "b", "c"]],
    ["first turn, the best hit shared: it comes again as the focus, the other shared hits do not", ["a", "b", "c"], ["a", "c"], [], true, ["a", "b"]],
    ["first turn, a lesser hit shared: left out", ["a", "b"], ["b"], [], true, ["a"]],
    ["first turn, everything shared: the best hit alone", ["a", "b"], ["a", "b"], [], true, ["a"]],
    ["follow-up, best hit new: that one", ["a", "b"], [], [], false, ["a"]],
    ["follow-up, best hit in the conversation already: nothing", ["a", "b"], [], ["a"], false, []],
    ["follow-up, best hit shared but not yet in the conversation: the focus", ["a", "b"], ["a"], [], false, ["a"]],
    ["follow-up, best hit shared and brought by an earlier turn: nothing", ["a", "b"], ["a"], ["a"], false, []],
    ["no hits", [], ["a"], [], true, []],
  ] as const)("%s", (_name, hits, shared, history, firstTurn, want) => {
    const got = turnLoreCandidates(hits.map((h) => hit(h)), { shared: new Set(shared), inHistory: new Set(history), firstTurn });
    expect(ids(got)).toEqual([...want]);
  });

  test("a kept secret in the static prompt is never repeated as the focus; a new one still comes in once", () => {
    expect(ids(turnLoreCandidates([hit("s", true), hit("b")], { shared: new Set(["s", "b"]), inHistory: none, firstTurn: true }))).toEqual([]);
    expect(ids(turnLoreCandidates([hit("s", true), hit("b")], { shared: new Set(["b"]), inHistory: none, firstTurn: true }))).toEqual(["s"]);
    expect(ids(turnLoreCandidates([hit("s", true)], { shared: new Set(["s"]), inHistory: none, firstTurn: false }))).toEqual([]);
    // a secret its reveal condition opened is told like any note, so it may be the focus
    const revealed = { ...hit("s", true), revealed: true };
    expect(ids(turnLoreCandidates([revealed], { shared: new Set(["s"]), inHistory: none, firstTurn: true }))).toEqual(["s"]);
  });
});
