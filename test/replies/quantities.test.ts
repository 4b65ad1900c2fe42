import { describe, expect, test } from "bun:test";
import { givenNumbers, statedNumbers, unsupportedQuantity } from "../../src/npc/replies/quantities.ts";

/** A turn's prompt as the reply guard reads it: persona, notes, the player's line. */
const PROMPT = [
  "You are Garrick Stone, keeper of the Rusty Flagon in Thornhaven, a character in a game.",
  "[Lore] About the Ferry: The ferry crosses the Brenn twice a day. A crossing costs three copper pennies, and the ferryman carries at most a dozen people.",
  "[Lore] About the Road: The north road to Millbrook is a day and a half on foot, about 40 miles by the old milestones.",
  "[Lore] About the Watch: The Thornhaven watch has seven members and was founded in 1203.",
  "How far is it to Millbrook?",
];
const given = givenNumbers(PROMPT);

describe("the numbers a text states", () => {
  test("digits, with thousands commas, decimals and ordinal endings", () => {
    expect(statedNumbers("It cost 1,200 crowns, or 3.5 a head, on the 12th day.").map((n) => n.value)).toEqual([1200, 3.5, 12]);
  });

  test("number words, a run of them read as one, and \"a dozen\", \"a hundred\"", () => {
    expect(statedNumbers("Three hundred and twenty men, thirty-five horses, a dozen carts and a hundred torches.").map((n) => n.value)).toEqual([320, 35, 12, 100]);
    expect(statedNumbers("Two thousand five hundred.").map((n) => n.value)).toEqual([2500]);
    // a run that opens on its scale: a note's "hundred and four steps" is the reply's "one hundred and four"
    expect(statedNumbers("The tower's hundred and four steps.").map((n) => n.value)).toEqual([104]);
    expect(unsupportedQuantity("The tower has one hundred and four steps.", givenNumbers(["the tower's hundred and four steps"]))).toBeNull();
  });

  test("punctuation ends a run: a list of numbers is several", () => {
    expect(statedNumbers("Seven, eight, nine.").map((n) => n.value)).toEqual([7, 8, 9]);
  });

  test("a prompt is read with its ordinals and the words that imply a number; a reply is not", () => {
    expect(givenNumbers(["the third bell, twice a fortnight"]).sort((a, b) => a - b)).toEqual([2, 3, 14]);
    expect(statedNumbers("At first I came twice.")).toEqual([]);
  });
});

describe("a reply's made-up numbers (the guard's unsupportedQuantity)", () => {
  test("a distance the notes do not give is made up", () => {
    expect(unsupportedQuantity("It's about 35 miles to Millbrook, a long day's walk.", given)).toBe('"35"');
  });

  test("a count the notes give differently is made up, as a word or in digits", () => {
    expect(unsupportedQuantity("Eight.", given)).toBe('"Eight"');
    expect(unsupportedQuantity("The watch has 8 members.", given)).toBe('"8"');
  });

  test("a cost made up beside the right one is still found", () => {
    expect(unsupportedQuantity("Three copper pennies, or five for a horse.", given)).toBe('"five"');
  });

  test("a number the prompt gives is fine in any of its forms: words for digits, digits for words", () => {
    expect(unsupportedQuantity("It's forty miles, a day and a half on foot.", given)).toBeNull();
    expect(unsupportedQuantity("The crossing costs 3 pennies and he takes 12 at most.", given)).toBeNull();
    expect(unsupportedQuantity("Seven of them, since 1203.", given)).toBeNull();
    expect(unsupportedQuantity("He crosses two times a day.", given)).toBeNull();
  });

  test("the player's own number may be said back", () => {
    const g = givenNumbers([...PROMPT, "I have 17 silver coins. Is that enough?"]);
    expect(unsupportedQuantity("Seventeen silver coins is plenty for the ferry.", g)).toBeNull();
  });

  test("ways of speaking are no counts: one of them, no one, a thing or two, a few, a couple of", () => {
    for (const reply of [
      "One of the old ones told me, but no one listens to him.",
      "I know a thing or two about the road.",
      "A few travellers pass by, and a couple of traders.",
      "Aye, the one with the red door.",
    ])
      expect(unsupportedQuantity(reply, given)).toBeNull();
  });

  test("a reply without numbers, and one with only the given ones, pass", () => {
    expect(unsupportedQuantity("Ask the ferryman, he knows the river.", given)).toBeNull();
    expect(unsupportedQuantity("", given)).toBeNull();
  });

  test("every made-up number is named, in order", () => {
    expect(unsupportedQuantity("Four or five days, some 60 miles.", given)).toBe('"Four", "five", "60"');
  });
});
