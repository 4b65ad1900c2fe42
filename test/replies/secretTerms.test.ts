import { describe, expect, test } from "bun:test";
import { leakOf, secretTerms } from "../../src/npc/secrets/secretTerms.ts";

// The secret judge: what a reply must hold to have told a kept secret, by the words only the secret has and by the
// words that stand together only in it. Table rows: a reply, and whether it tells the secret.
const GRAIN = secretTerms(
  "The Grain for Keldra",
  "Warden Haska has promised to sell three hundred sacks of the town's winter grain to the lowland garrison at Keldra. " +
    "He keeps the true tally on the top shelf of the granary.",
  [
    "You are Tibor Haska, Warden of the town, a character in a game.",
    "About The Granary: The granary holds two hundred sacks of winter grain; the Warden counts them each month. Its shelf of tallies is open to all.",
    "Are you selling our winter grain to the lowlanders?",
  ],
);

describe("secretTerms and leakOf", () => {
  test.each([
    ["You sell three hundred sacks of winter grain to the lowlanders.", true], // "three" alone is the secret's, beside "hundred"
    ["The tally is on the top shelf.", true],
    ["Keldra pays well.", true], // a name of the secret: one is enough
    ["The granary holds two hundred sacks of winter grain.", false], // the public note's words, in the public note's order
    ["I am Warden Haska, and the winter grain is counted each month.", false], // words the turn says anyway, side by side
    ["Three days of rain, and the top of the road washed out.", false], // the secret's own word, but not in its company
    ["No, I sell nothing to the lowlanders.", false],
  ] as const)("%s → told: %p", (reply, told) => {
    expect(leakOf(reply, [GRAIN]) !== null).toBe(told);
  });

  test("a name of the secret is kept whole: the surname Oakes tells it, the word oak does not", () => {
    const watch = secretTerms("The Watch", "The dyke breach was hidden by Captain Mirren Oakes.", ["About The Dyke: an old oak stands by the sluice."]);
    expect(leakOf("Oakes knows more than he says.", [watch])).not.toBeNull();
    expect(leakOf("Captain Oakes’s men walk the dykes.", [watch])).not.toBeNull();
    expect(leakOf("The oak by the sluice is older than the town.", [watch])).toBeNull();
  });

  test("two of the secret's own words, told in other forms of them", () => {
    // "promise" and "garrisons" meet the secret's "promised" and "garrison" ("promis" and "promise" before)
    expect(leakOf("He made a promise to the garrisons.", [GRAIN])).not.toBeNull();
  });

  test("a pair is kept only when one of its words is the secret's alone and the two stand together nowhere else in the turn", () => {
    expect(GRAIN.pairs).toContain("three hundr");
    expect(GRAIN.pairs).toContain("top shelf");
    expect(GRAIN.pairs).not.toContain("warden haska");
    expect(GRAIN.pairs).not.toContain("winter grain");
    // pairs never reach over a sentence's end ("Keldra. He keeps")
    expect(GRAIN.pairs!.some((p) => p.startsWith("keldra "))).toBe(false);
  });
});
