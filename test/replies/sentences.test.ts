import { describe, expect, test } from "bun:test";
import { capSentences, cutAtLastSentence, sentenceEnds, splitSentences } from "../../src/npc/replies/sentences.ts";

describe("splitSentences", () => {
  const table: [string, string[]][] = [
    ["One. Two. Three.", ["One.", "Two.", "Three."]],
    ["No terminator at all", ["No terminator at all"]],
    ["", []],
    ["Ask Mr. Vane at St. Callow's. He knows.", ["Ask Mr. Vane at St. Callow's.", "He knows."]],
    ["Mrs. Brask and Dr. Fenn are here.", ["Mrs. Brask and Dr. Fenn are here."]],
    ["The engine is 3.5 tons. It is old.", ["The engine is 3.5 tons.", "It is old."]],
    ["It costs 4.50 crowns.", ["It costs 4.50 crowns."]],
    ["Well... I suppose so. Go on.", ["Well... I suppose so.", "Go on."]],
    ["I don't know... Ask the Warden.", ["I don't know...", "Ask the Warden."]],
    ["Wait… what? No!", ["Wait… what?", "No!"]],
    ["You did what?! Get out!", ["You did what?!", "Get out!"]],
    ['He said "Go away." Then he left.', ['He said "Go away."', "Then he left."]],
    ['"Stop!" she cried. Nobody stopped.', ['"Stop!" she cried.', "Nobody stopped."]],
    ['"Go away," he said. "Now."', ['"Go away," he said.', '"Now."']],
    ["Built by J. Solk in 398. A fine engine.", ["Built by J. Solk in 398.", "A fine engine."]],
    ["Bring sand, e.g. from the beach. Thanks.", ["Bring sand, e.g. from the beach.", "Thanks."]],
    ["First line\n\nSecond line", ["First line", "Second line"]],
    ["Done.\n\nNext one.", ["Done.", "Next one."]],
    ["It is (mostly) true. Really.", ["It is (mostly) true.", "Really."]],
    ["He left (at dawn.) Then rain.", ["He left (at dawn.)", "Then rain."]],
    ["Eleven minutes. 4 brass bits up.", ["Eleven minutes.", "4 brass bits up."]],
    ["lowercase after stop. keeps going", ["lowercase after stop. keeps going"]],
  ];
  for (const [text, want] of table) test(JSON.stringify(text), () => expect(splitSentences(text)).toEqual(want));
});

describe("sentenceEnds while streaming (final: false)", () => {
  test("a stop at the end of the text is not yet an end (it may be 3.5 or Mr.)", () => {
    expect(sentenceEnds("It weighs 3.", { final: false })).toEqual([]);
    expect(sentenceEnds("It weighs 3.5", { final: false })).toEqual([]);
    expect(sentenceEnds("Done. ", { final: false })).toEqual([]);
    expect(sentenceEnds("Done. N", { final: false })).toEqual([5]);
    expect(sentenceEnds("Ask Mr. V", { final: false })).toEqual([]);
  });
  test("complete text: the last stop ends a sentence", () => expect(sentenceEnds("Done.")).toEqual([5]));
});

describe("capSentences", () => {
  const table: [string, number, string][] = [
    ["One. Two. Three. Four.", 3, "One. Two. Three."],
    ["One. Two.", 3, "One. Two."],
    ["One. Two. Three.", 3, "One. Two. Three."],
    ["One! Two? Three... Four.", 2, "One! Two?"],
    ["Mr. Vane is here. He waits. Go.", 1, "Mr. Vane is here."],
    ["No end here", 1, "No end here"],
  ];
  for (const [text, max, want] of table) test(`${JSON.stringify(text)} to ${max}`, () => expect(capSentences(text, max)).toBe(want));
});

describe("cutAtLastSentence (the token cap cut the reply)", () => {
  const table: [string, string][] = [
    ["The cars run every half hour. The fare is fo", "The cars run every half hour."],
    ["It is true! And then the", "It is true!"],
    ["Never a full stop in thirty wor", "Never a full stop in thirty"],
    ["Word", "Word"],
    ["Mr. Vane said that the", "Mr. Vane said that"],
    ["He waited, and", "He waited"],
  ];
  for (const [text, want] of table) test(JSON.stringify(text), () => expect(cutAtLastSentence(text)).toBe(want));
});
