import { describe, expect, test } from "bun:test";
import { contentStems, loreSentences, offTopicRecital } from "../../src/npc/replies/recitedLine.ts";

/** A town's notes as a turn carries them (the shape of the tuning world Reedmouth's founding note). */
const LORE = loreSentences([
  "Millbrook was founded in the year 611 by the miller Osric Dunn, who dammed the brook. The first building of the town was a grain store, and the oldest bell was hung twenty years later.\n\nThe town council has five members and meets in the Moot Hall on the last Thursday of each month.",
  "Millbrook stands on the east bank of the Wend. The market town of Carrow is two days' walk down the river road.",
  "The Moot Hall bell rings at dawn and at the tenth bell, when the town gates close.",
  "The ford is crossed on stepping stones. A crossing takes an hour when the water is high and half that in summer.",
]);

describe("offTopicRecital: a lore sentence said that does not answer the question", () => {
  const cases: [string, string, string, boolean][] = [
    // [why, question, reply, flagged]
    ["the council line for a question about the first building", "What was the first building in Millbrook?", "The town council has five members and meets in the Moot Hall on the last Thursday of each month.", true],
    ["the same, cut short", "What was the first building in Millbrook?", "The town council has five members and meets in the Moot Hall.", true],
    ["the same, with a word of its own before it", "What was the first building in Millbrook?", "Aye. The town council has five members and meets in the Moot Hall.", true],
    ["the answer's own sentence", "What was the first building in Millbrook?", "The first building of the town was a grain store.", false],
    ["the answer in the mind's own words", "What was the first building in Millbrook?", "A grain store, friend, before any of us were born.", false],
    ["a sentence that shares a key word of the question (Carrow)", "How far is it to Carrow?", "The market town of Carrow is two days' walk down the river road.", false],
    ["the council line for the founder: 'town' is in half the notes, no key word", "Who founded this town?", "The town council has five members and meets in the Moot Hall on the last Thursday of each month.", true],
    ["the founding sentence for the founder", "Who founded this town?", "Millbrook was founded in the year 611 by the miller Osric Dunn, who dammed the brook.", false],
    ["a recital mixed with a sentence of its own is not a recital", "What was the first building in Millbrook?", "The town council has five members and meets in the Moot Hall. I never cared much for their talk of old sheds and stones.", false],
    ["small talk is not a question", "Lovely morning for a walk to the market.", "The town council has five members and meets in the Moot Hall on the last Thursday of each month.", false],
    ["a short reply says too little to be a copy", "What was the first building in Millbrook?", "The Moot Hall.", false],
    ["no lore sentence shares a key word: nothing closer was at hand", "What is your favourite colour?", "The town council has five members and meets in the Moot Hall on the last Thursday of each month.", false],
    ["the answer's sentence, which shares only the question's 'cross' (as 'crossing')", "How long does the ford take to cross?", "The ford takes an hour when the water is high and half that in summer.", false],
    ["a question by its opening word, no mark", "When do the gates close", "The town council has five members and meets in the Moot Hall on the last Thursday of each month.", true],
    // the founding sentence holds the question's "dam" as "dammed" (one stem now, "damm" and "dam" before): it was closer
    ["the council line for a question about the dam", "Where is the dam?", "The town council has five members and meets in the Moot Hall on the last Thursday of each month.", true],
    ["the founding sentence for a question about the dam", "Where is the dam?", "Millbrook was founded in the year 611 by the miller Osric Dunn, who dammed the brook.", false],
    // a short answer in the lore's words makes the reply its own, whatever follows it ("Mabry Solk. The cable …")
    ["a named answer, then the council line", "Who founded this town?", "Osric Dunn. The town council has five members and meets in the Moot Hall.", false],
    ["a short answer, then the council line", "What was the first building in Millbrook?", "A grain store. The town council has five members and meets in the Moot Hall.", false],
    ["an interjection holds no lore word: still a recital", "What was the first building in Millbrook?", "Aye, friend. The town council has five members and meets in the Moot Hall.", true],
    // a copy keeps its numbers: one put in is the reply's own (the number checks judge it)
    ["the council line with a number of its own", "What was the first building in Millbrook?", "The town council has seven members and meets in the Moot Hall.", false],
    ["the council line with its own number, as digits", "What was the first building in Millbrook?", "The town council has 5 members and meets in the Moot Hall.", true],
  ];
  for (const [why, question, reply, flagged] of cases)
    test(why, () => {
      const got = offTopicRecital(reply, question, LORE);
      if (flagged) expect(got).toContain("council");
      else expect(got).toBeNull();
    });

  test("no lore, or a single sentence of it: never", () => {
    const line = "The town council has five members and meets in the Moot Hall on the last Thursday of each month.";
    expect(offTopicRecital(line, "What was the first building in Millbrook?", [])).toBeNull();
    expect(offTopicRecital(line, "What was the first building in Millbrook?", [line])).toBeNull();
  });
});

describe("the words it compares (stems: src/core/text/wordStem.ts, test/core/wordStem.test.ts)", () => {
  test("content words leave out function words and the commonest longer ones", () => {
    expect([...contentStems("What is the name of the house porter at your inn?")]).toEqual(["name", "hous", "porter", "inn"]);
  });

  test("lore sentences: each note's sentences once, blank lines and paragraphs apart", () => {
    expect(loreSentences(["One thing. Two things.\n\nThree things.", "One thing."])).toEqual(["One thing.", "Two things.", "Three things."]);
  });
});
