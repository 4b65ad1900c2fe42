import { describe, expect, test } from "bun:test";
import { properNounDensity } from "../../../src/scanner/extract/review.ts";

/** The definition the scanner's scan of code points must reproduce: words of /\p{L}[\p{L}'’-]*\/gu, capitalised, not sentence-initial. */
function reference(text: string): number {
  const sample = text.length > 3000 ? text.slice(0, 3000) : text;
  const initial = (i: number) => {
    let j = i - 1;
    while (j >= 0 && ` \t"“'*(`.includes(sample[j])) j--;
    return j < 0 || "\n.!?:…#".includes(sample[j]);
  };
  let names = 0;
  let words = 0;
  for (const m of sample.matchAll(/[\p{L}][\p{L}'’-]*/gu)) {
    words++;
    if (/^\p{Lu}\p{Ll}/u.test(m[0]) && !initial(m.index!)) names++;
  }
  return words ? names / words : 0;
}

describe("properNounDensity", () => {
  const texts = [
    "",
    "no letters 123 --- ...",
    "The King of Ærnhold met Élise-Anne o'Neil’s crew at Dawnport.",
    "日本語 テキスト Ωmega Ψυχή and Ölund, Ñandú Żółw.",
    "𝐀bc 𝐀𝐁 x\ud800y Z\udc00q", // letters outside the BMP and lone surrogates
    "a-b-c 'x' -Foo Bar--Baz’ Qux’s A I Xy",
    "\n#Title Name\n(Paren Word) \"Quoted Word\" * Star Word: Colon Word! Bang Word",
    "Lorem Ipsum ".repeat(400), // past the 3,000-character sample
  ];
  for (const t of texts) {
    test(`matches the regex definition on ${JSON.stringify(t.slice(0, 30))}`, () => {
      expect(properNounDensity(t)).toBe(reference(t));
    });
  }

  test("counts names, not sentence starts", () => {
    // "The" and "Captain" open sentences; "Mora" is the one name.
    expect(properNounDensity("The ship left. Captain Mora waved.")).toBeCloseTo(1 / 6, 10);
  });
});
