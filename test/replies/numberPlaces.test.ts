import { describe, expect, test } from "bun:test";
import { generateReply, GUARD_POLICY } from "../../src/npc/replies/generateReply.ts";
import { misplacedNumber, numberSources } from "../../src/npc/replies/numberPlaces.ts";
import { givenNumbers } from "../../src/npc/replies/quantities.ts";
import { steerAway } from "../../src/npc/replies/steer.ts";
import { replyContext, scripted, turnRequest } from "../support/scriptedTurn.ts";

/** A tuning world's mind as the guard reads its prompt: the steps and a "ten" of another sentence. */
const PROMPT = [
  "You are Mother Ilse Varrow, bell-keeper of Reedmouth, a character in a game.",
  "About The Tide Bell: The bell, Old Maud, weighs nineteen hundredweight and was cast by the bellfounder Corwen Ashdown. Visitors may climb the tower's hundred and four steps on Fishdays.",
  "About The Founding of Reedmouth: The first building of the town was a salt shed, and the oldest bell in the delta was hung ten years later.",
  "About The Ferry: The ferry takes nine minutes when the tide is slack. A crossing costs two copper bits.",
  "About The Weirs: Jossel Thrupp is the weir-master and keeps the eel traps.",
];
const sources = numberSources(PROMPT);

describe("a number given for another thing (numberPlaces)", () => {
  const rows: [string, string | null][] = [
    // the prompt's "ten" belongs to the bell's hanging: said of the steps, it is misplaced
    ["The tower has 10 steps.", '"10" where the prompt gives 104'],
    ["The tower has 10 and four steps on Fishdays.", '"10" where the prompt gives 104'],
    ["Old Maud weighs ten hundredweight.", '"ten" where the prompt gives 19'],
    // the number the prompt gives for it, in any form
    ["The tower has 104 steps.", null],
    ["A hundred and four steps, and I climb them every Fishday.", null],
    ["One hundred and four steps to the top.", null],
    ["The oldest bell was hung ten years later.", null],
    // a sentence that shares one word with the prompt's is not about the same thing: not judged
    ["I have rung it 10 times today.", null],
    // the things a reply sentence speaks of give no number: nothing to compare with
    ["Jossel Thrupp has kept the eel traps for 10 years.", null],
    // but a number the prompt gives for nothing said of the bell is the bell's made-up one
    ["Corwen Ashdown cast the bell, oh, 10 lifetimes ago.", '"10" where the prompt gives 19'],
    // a lone "one" is a way of speaking, not a count
    ["The tower has one door and many steps.", null],
    // a number from two sentences on one topic: each sentence's number is given
    ["The ferry takes nine minutes and costs two copper bits.", null],
  ];
  for (const [reply, want] of rows) test(reply, () => expect(misplacedNumber(reply, sources, [])).toBe(want));

  describe("a number the topic gives, said with a unit it gives only another number", () => {
    // the shape of a tuning world's ferryman: his years on the ferry, and the crossing's minutes
    const ferry = numberSources([
      "Hobb has pulled the chain ferry across the Brackwater for twenty-six years, as his father did before him.",
      "The Brackwater ferry is a flat chain ferry called the Dunlin. A crossing takes nine minutes when the tide is slack, and twenty when it runs.",
    ]);
    const cases: [string, string | null][] = [
      ["The ferry takes 26 minutes to cross the Brackwater crossing.", '"26" minutes where the prompt gives 9 of that'],
      ["The ferry takes nine minutes to cross the Brackwater.", null],
      ["Twenty-six years I have pulled the Brackwater ferry.", null],
      // "twenty when it runs": the topic gives 20 without a unit, so it may be said with one
      ["A crossing of the Brackwater takes twenty minutes at the full tide.", null],
      // a unit the topic gives no number with: nothing to compare with
      ["The ferry has crossed the Brackwater 26 times today.", null],
    ];
    for (const [reply, want] of cases) test(reply, () => expect(misplacedNumber(reply, ferry, [])).toBe(want));

    test("a resample is steered from the number's words, never from its unit", () => {
      const detail = misplacedNumber("The ferry takes twenty-six minutes to cross the Brackwater.", ferry, [])!;
      const avoided = new Set(steerAway([{ kind: "unsupportedQuantity", detail }], replyContext({ playerLine: "How long does the ferry take to cross?", mindName: "Hobb" }), -4).map((a) => a.text.trim().toLowerCase()));
      expect(avoided.has("twenty")).toBe(true);
      expect(avoided.has("minutes")).toBe(false);
    });

    test("the unit is the word after the number, stemmed; none after a function word or punctuation", () => {
      const [s] = numberSources(["It took twenty-six years, nine minutes and 4 of them; 7."]);
      expect(Object.fromEntries([...s.units].map(([v, u]) => [v, [...u]]))).toEqual({ 26: ["year"], 9: ["minut"], 4: [""], 7: [""] });
    });
  });

  describe("a bare answer is read with the question's words", () => {
    const flood = numberSources([
      "The Great Flood came sixty-one years ago and took the lower town. The new wall is thirty feet high.",
      "Apprentices knot for five years before they may mend a boat's net alone. The loft holds 4 looms.",
    ]);
    const cases: [string, string, string | null][] = [
      ["How long ago was the Great Flood?", "Six years ago.", '"Six" where the prompt gives 61'],
      ["How many years does an apprentice knot before mending alone?", "4", '"4" where the prompt gives 5'],
      ["How long ago was the Great Flood?", "Sixty-one years ago.", null],
      ["How many years does an apprentice knot before mending alone?", "Five.", null],
      // a sentence that names its own topic is read on its own words, as before
      ["How long ago was the Great Flood?", "The loft holds 4 looms.", null],
      // without the question, a bare answer is not judged
      ["", "4", null],
    ];
    for (const [asked, reply, want] of cases) test(`${asked} → ${reply}`, () => expect(misplacedNumber(reply, flood, [], asked)).toBe(want));
  });

  test("a number the player said may be said back", () => {
    expect(misplacedNumber("The tower has 10 steps? No, more.", sources, [10])).toBeNull();
  });

  test("the sources give each sentence's numbers, ordinals and implied ones too, without number words among the topic's", () => {
    const [s] = numberSources(["The third bell rings twice at the tower's hundred and four steps."]);
    expect([...s.numbers].sort((a, b) => a - b)).toEqual([2, 3, 104]);
    expect([...s.stems].some((w) => /hundred|four|third/.test(w))).toBe(false);
  });
});

/** The guard's side: a misplaced number sends the sample back once a turn, as a made-up one does. */
const ctx = replyContext({
  playerLine: "How many steps does the tower have?",
  mindName: "Ilse Varrow",
  structuralLines: [PROMPT[0]],
  noteNames: ["The Tide Bell", "The Founding of Reedmouth"],
  givenNumbers: givenNumbers(PROMPT),
  numberPlaces: { sources: () => sources, said: [] },
});
const req = () => turnRequest({ seed: 7 });
const WRONG = "The tower has 10 steps.";
const RIGHT = "The tower has a hundred and four steps.";

describe("the reply guard and misplaced numbers", () => {
  test("the sample is drawn again and the right one returned", async () => {
    const { llm, calls } = scripted([WRONG, RIGHT]);
    const { result, report } = await generateReply(llm, req(), ctx);
    expect(calls).toHaveLength(2);
    expect(report.attempts[0].problems).toEqual([{ kind: "unsupportedQuantity", detail: '"10" where the prompt gives 104' }]);
    expect(result.text).toBe(RIGHT);
  });

  test("once a turn, shared with made-up numbers: a second misplaced sample is not drawn again", async () => {
    const { llm, calls } = scripted([WRONG, "The tower has nine steps.", RIGHT]);
    const { report } = await generateReply(llm, req(), ctx);
    expect(calls).toHaveLength(2);
    expect(report.attempts.map((a) => a.problems.map((p) => p.kind))).toEqual([["unsupportedQuantity"], ["unsupportedQuantity"]]);
  });

  test("with the check off, or without the prompt read for it, the sample is returned", async () => {
    const off = scripted([WRONG, RIGHT]);
    expect((await generateReply(off.llm, req(), ctx, { ...GUARD_POLICY, checkNumberPlaces: false })).result.text).toBe(WRONG);
    const none = scripted([WRONG, RIGHT]);
    expect((await generateReply(none.llm, req(), { ...ctx, numberPlaces: undefined })).result.text).toBe(WRONG);
  });
});
