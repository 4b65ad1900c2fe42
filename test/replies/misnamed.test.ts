import { describe, expect, test } from "bun:test";
import { generateReply, GUARD_POLICY } from "../../src/npc/replies/generateReply.ts";
import { misnamed, nameSources } from "../../src/npc/replies/misnamed.ts";
import { replyContext, scripted, turnRequest } from "../support/scriptedTurn.ts";

/** A tuning world's prompt as the guard reads it, and the player's line. */
const TEXTS = [
  "You are Garrick Stone, keeper of the Rusty Flagon in Thornhaven, a character in a game.",
  "People you know:\n- Garve Dray: FRIEND (The boy runs his errands to the quay)",
  "About The Woods: The smokehouse fires burn oak cut at Fallowby Wood, two miles up the Lathe.",
  "About The Rusty Flagon: Tobias Crane has the longest tab at the bar. Teaches Pell to read on Sundays.",
  "About The Weirs: The weir-master, Jossel Thrupp, keeps the eel traps.",
  "Good evening! My name is Bryony Teale, and I have walked down from Castermere.",
];
const src = nameSources(TEXTS);
const word = (reply: string) => misnamed(reply, src)?.word ?? null;

describe("a known name said wrong (misnamed)", () => {
  const rows: [string, string | null][] = [
    // a name's word made up beside its other word, or respelled
    ["Rupert Crane has the longest tab at your bar.", "rupert"],
    ["Wesel Thrupp is the weir-master.", "wesel"],
    ["The wood is cut at Gallowby Wood.", "gallowby"],
    ["It's the finest brandy in Thornehaven.", "thornehaven"],
    ["Greed Dray, you're ready!", "greed"],
    // the names as the prompt gives them, in any case, possessive or not
    ["Tobias Crane has the longest tab.", null],
    ["Jossel Thrupp's traps are by the weir.", null],
    ["The wood comes from Fallowby Wood.", null],
    // a sentence's first word is capitalised by grammar: alone, never a respelling ("There" is not "their")
    ["There is no such thing.", null],
    ["Given the tide, I'd wait.", null],
    // a greeting or a title before a name is not a name of its own
    ["Hello Pell, come in.", null],
    ["Good evening Bryony Teale!", null],
    ["Mister Crane pays on Fridays.", null],
    ["Ask Tobias.", null],
    // a reply cut off mid-name is short, not wrong
    ["I am Bryony Te", null],
    // a name the prompt does not give at all is not this check's (the attribution check judges who did what)
    ["Bargefolk has the longest tab at your bar.", null],
    ["The Golden Net is the largest.", null],
  ];
  for (const [reply, want] of rows) test(reply, () => expect(word(reply)).toBe(want));
});

const ctx = replyContext({ playerLine: "Who has the longest tab at your bar?", mindName: "Garrick Stone", names: () => src });
const WRONG = "Rupert Crane has the longest tab at your bar.";
const RIGHT = "Tobias Crane, and he knows it.";

describe("the reply guard and a name said wrong", () => {
  test("the sample is drawn again, steered from the made-up word, and the right one returned", async () => {
    const { llm, calls } = scripted([WRONG, RIGHT]);
    const { result, report } = await generateReply(llm, turnRequest(), ctx);
    expect(calls).toHaveLength(2);
    expect(report.attempts[0].problems.map((p) => p.kind)).toEqual(["misnamed"]);
    const avoided = calls[1].avoid?.map((a) => a.text.trim().toLowerCase()) ?? [];
    expect(avoided).toContain("rupert");
    expect(avoided).not.toContain("crane");
    expect(result.text).toBe(RIGHT);
  });

  test("once a turn: a second wrong name is returned rather than drawn again", async () => {
    const { llm, calls } = scripted([WRONG, "Tobin Crane, I think.", RIGHT]);
    await generateReply(llm, turnRequest(), ctx);
    expect(calls).toHaveLength(2);
  });

  test("with the check off, or without the names read, the sample is returned", async () => {
    const off = scripted([WRONG, RIGHT]);
    expect((await generateReply(off.llm, turnRequest(), ctx, { ...GUARD_POLICY, checkNames: false })).result.text).toBe(WRONG);
    const none = scripted([WRONG, RIGHT]);
    expect((await generateReply(none.llm, turnRequest(), { ...ctx, names: undefined })).result.text).toBe(WRONG);
  });
});
