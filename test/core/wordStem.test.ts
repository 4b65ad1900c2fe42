import { describe, expect, test } from "bun:test";
import { nameForm, plainWord, pluralStem, wordStem } from "../../src/core/text/wordStem.ts";

const same = (ws: string[], stem = wordStem) => new Set(ws.map((w) => stem(w))).size === 1;

describe("wordStem: the reply checks' stems (Porter's algorithm)", () => {
  // Forms the checks' hand-written stems kept apart, one row each: Porter's algorithm meets them.
  test.each([
    [["owns", "owned", "owning"]],
    [["berries", "berry"]], // the attribution and secret stems: "berri" and "berry"
    [["ferries", "ferry"]],
    [["founding", "founded", "found"]],
    [["dammed", "dam"]], // a doubled consonant: "damm" and "dam" before
    [["tarred", "tars", "tar"]],
    [["promised", "promise", "promises"]], // the secret stem: "promis" and "promise"
    [["close", "closes", "closed", "closing"]],
    [["buildings", "building", "build"]],
    [["fee", "fees"]],
  ])("%p meet", (ws) => {
    expect(same(ws)).toBe(true);
  });

  test("the s of cross, census and iris is no plural's: each meets its own plural, and no shorter word", () => {
    expect(same(["cross", "crosses", "crossing"])).toBe(true); // the attribution stem made "cross" "cros"
    expect(same(["census", "censuses"])).toBe(true);
    expect(same(["iris", "irises"])).toBe(true);
    expect(wordStem("census")).toBe("census");
    expect(wordStem("bus")).not.toBe(wordStem("bu"));
  });

  test("a possessive is off, in either apostrophe, and case is not a difference", () => {
    expect(["Callow's", "Callow’s", "callow", "CALLOW"].map(wordStem)).toEqual(["callow", "callow", "callow", "callow"]);
    expect(plainWord("Reeve’s")).toBe("reeve");
  });

  test("numbers are kept as written", () => {
    expect(["711", "3rd", "1388s"].map(wordStem)).toEqual(["711", "3rd", "1388s"]);
  });

  test("words apart stay apart", () => {
    expect(wordStem("founder")).not.toBe(wordStem("found")); // Porter leaves -er on a one-syllable root: a founder is no finding
    expect(wordStem("porter")).not.toBe(wordStem("port"));
    expect(wordStem("general")).not.toBe(wordStem("gentle"));
  });

  test("a name is not stemmed into a word", () => {
    // as a word, the surname would be the tree
    expect(wordStem("Oakes")).toBe(wordStem("oak"));
    expect(nameForm("Oakes")).toBe("oakes");
    expect(nameForm("Oakes")).not.toBe(wordStem("oak"));
    expect(nameForm("Vellacott’s")).toBe("vellacott");
  });
});

describe("pluralStem: the memories' stems (stored with world memories, so not Porter's)", () => {
  test("a plural's s off, ies → y, and nothing else", () => {
    expect(["caravans", "berries", "owned", "founding"].map(pluralStem)).toEqual(["caravan", "berry", "owned", "founding"]);
  });

  test("the s of cross and census is no plural's", () => {
    expect(["cross", "census", "bus"].map(pluralStem)).toEqual(["cross", "census", "bus"]);
  });

  test("a stem is its word's prefix but for a final y (what the world memories' substring filter relies on)", () => {
    for (const w of ["caravans", "berries", "smokehouses", "ferries", "cross", "hops"]) {
      const s = pluralStem(w);
      expect(w.startsWith(s.endsWith("y") ? s.slice(0, -1) : s)).toBe(true);
    }
  });
});
