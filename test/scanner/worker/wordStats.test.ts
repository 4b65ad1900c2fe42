import { describe, expect, test } from "bun:test";
import { normalizeWords } from "../../../src/scanner/extract/text.ts";
import { sketchSimilarity, wordSketch, wordStats } from "../../../src/scanner/worker/wordSketch.ts";

// wordStats replaces `new Set(words.split(" "))` + wordSketch on the scan's hot path: it must agree with them.
const TEXTS: [string, string][] = [
  ["empty text", ""],
  ["one word", "Wren"],
  ["repeated words", "the the the river river the"],
  ["prose", "Grip, Farmer Maggot's dog, guards the farm by the Brandywine; the dog bites anyone who trespasses on the farm."],
  ["accents and numbers", "Ça va? Élodie paid 30 gold — 30 GOLD — at the Rusty Tankard in 1042."],
  ["a long text", Array.from({ length: 5000 }, (_, i) => `word${i % 1700}`).join(" ")],
];

describe("wordStats", () => {
  test.each(TEXTS)("%s: distinct words and sketch equal the Set's", (_, text) => {
    const words = normalizeWords(text);
    const set = new Set(words.split(" "));
    const stats = wordStats(words);
    expect(stats.unique).toBe(set.size);
    expect([...stats.sketch]).toEqual([...wordSketch(set)]);
  });

  test("near-identical texts keep a close sketch, different texts do not", () => {
    const a = wordStats(normalizeWords("The abbey ruins hold the old bell of Thornhaven and the graves of its monks."));
    const b = wordStats(normalizeWords("The abbey ruins hold the old bell of Thornhaven and the graves of its monks!"));
    const c = wordStats(normalizeWords("Mara sells smoked eel at the docks every morning before the fog lifts."));
    expect(sketchSimilarity(a.sketch, b.sketch)).toBe(1);
    expect(sketchSimilarity(a.sketch, c.sketch)).toBeLessThan(0.3);
  });
});
