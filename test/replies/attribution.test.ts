import { describe, expect, test } from "bun:test";
import { attributionSources, wrongAttribution } from "../../src/npc/replies/attribution.ts";

/** A turn's prompt as the reply guard reads it: the system text with its people, the turn's notes, the player's line. */
const SYSTEM = [
  "You are Hobb Ferrant, Ferryman of the Brackwater crossing, a character in a game.",
  "Backstory: You have pulled the chain ferry across the Brackwater for twenty-six years.",
  "People you know:",
  "- Nessa Dray: friend (She mends his tow-ropes and will not take his money)",
  "- Wick Varrow: mentor (He taught the boy to read the current)",
  "- Anselm Quayle: rival (They argue every spring over the ferry's rent)",
].join("\n");
const TURN = [
  "[Lore]",
  "About The Ferry Chain: The Dunlin is pulled along a chain two hundred and forty fathoms long, forged in the year 711 by the smith Teodor Vellacott of Castermere. The chain is tarred every autumn and its links are counted by the Reeve's clerk each spring.",
  "",
  "About The Eel Weirs: Three eel weirs cross the shallow channels. They belong to the Weir Company, whose weir-master is Jossel Thrupp.",
  "",
  "[Player]",
  "Who forged the ferry chain?",
].join("\n");
const PEOPLE = ["Nessa Dray", "Wick Varrow", "Anselm Quayle"];
const src = attributionSources([SYSTEM, TURN], PEOPLE, ["Who forged the ferry chain?"]);

describe("a fact told of the wrong person (the guard's wrongAttribution)", () => {
  const flagged: [string, string][] = [
    ["a known person put where the note's smith stood", "Nessa Dray forged the ferry chain, long before my time."],
    ["by first name", "The chain was forged by Wick, the smith."],
    ["as the note's other role", "Anselm Quayle is the weir-master of the eel weirs."],
    ["in the second sentence", "Aye, the chain is old. Anselm forged the chain for the Dunlin."],
    ["another name of the notes put where the smith stood", "Jossel Thrupp forged the ferry chain."],
    ["a name from nowhere put where the smith stood", "The ferry chain was forged by Gaussby Wood."],
    // "tars" and the note's "tarred" are one stem ("tar", "tarr" before): with "links", two words of the note's fact
    ["a known person put to a fact told in another form of its words", "Nessa Dray tars the links."],
  ];
  for (const [what, reply] of flagged)
    test(`flagged: ${what}`, () => {
      expect(wrongAttribution(reply, src)).toContain("the prompt tells it without");
    });

  const passed: [string, string][] = [
    ["the note's own name", "Teodor Vellacott forged the ferry chain, a smith of Castermere."],
    ["no name at all", "A smith of Castermere forged it, in the year 711."],
    ["a person beside what the prompt says of them", "Nessa mends my tow-ropes and will not take my money."],
    ["a person with no fact of the prompt beside them", "Ask my friend Nessa, she might know."],
    ["a person as the teller of the fact", "Nessa says the chain was forged in Castermere by a smith."],
    ["the fact in one sentence, a person in another", "Teodor Vellacott forged the chain. Nessa Dray is my friend."],
    ["the player's question restated with nobody in it", "Who forged the ferry chain? A smith did."],
    ["another name beside the note's own", "The smith Teodor Vellacott forged it at Castermere Quay."],
    ["a place the note names beside the fact", "Who forged the ferry chain? A smith of Castermere, long ago."],
    ["a day of the week", "On Friday the Reeve's clerk counts the links of the ferry chain."],
  ];
  for (const [what, reply] of passed)
    test(`passed: ${what}`, () => {
      expect(wrongAttribution(reply, src)).toBeNull();
    });

  test("the player's line is not a source: a name put into the question's own words is not told by the prompt", () => {
    const line = "Who forged the ferry chain?";
    expect(wrongAttribution("Nessa Dray forged the ferry chain.", attributionSources([`[Player]\n${line}`], PEOPLE, [line]))).toBeNull();
    // read as a source, the question would have "told" it
    expect(wrongAttribution("Nessa Dray forged the ferry chain.", attributionSources([`[Player]\n${line}`], PEOPLE))).not.toBeNull();
    const bare = attributionSources(["[Player]\nDid Nessa Dray forge the ferry chain?"], PEOPLE, ["Did Nessa Dray forge the ferry chain?"]);
    expect(wrongAttribution("Nessa Dray forged the ferry chain.", bare)).toBeNull();
  });

  test("the sentence that names the person is their source: a note on them holds the fact", () => {
    const told = attributionSources([SYSTEM, "About Nessa: Nessa Dray forged the ferry chain in her youth."], PEOPLE);
    expect(wrongAttribution("Nessa Dray forged the ferry chain.", told)).toBeNull();
  });

  test("a mind that knows nobody by name: a name is checked the stricter way", () => {
    // the note's sentence that tells it names the Dunlin, Teodor Vellacott and Castermere: holding one of them is enough
    expect(wrongAttribution("Nessa Dray forged the ferry chain.", attributionSources([SYSTEM, TURN], [], ["Who forged the ferry chain?"]))).toContain("without Nessa Dray");
    expect(wrongAttribution("Nessa Dray forged the Dunlin's chain.", attributionSources([SYSTEM, TURN], [], ["Who forged the ferry chain?"]))).toBeNull();
  });

  test("a name the mind does not know is checked only when the player asks who; the people it knows always", () => {
    const how = attributionSources([SYSTEM, TURN.replace("Who forged the ferry chain?", "How long is the ferry chain?")], PEOPLE, ["How long is the ferry chain?"]);
    expect(wrongAttribution("Jossel Thrupp forged the ferry chain.", how)).toBeNull();
    expect(wrongAttribution("Anselm forged the ferry chain.", how)).not.toBeNull();
  });

  test("a note's text wrapped mid-sentence is read as its sentence", () => {
    const wrapped = attributionSources([SYSTEM, TURN.replace("by the smith Teodor", "by the smith\nTeodor")], PEOPLE, ["Who forged the ferry chain?"]);
    expect(wrongAttribution("Reedmouth's chain was forged in the year 711 by the smith Teodor Vellacott of Castermere.", wrapped)).toBeNull();
    expect(wrongAttribution("Nessa Dray forged the ferry chain.", wrapped)).not.toBeNull();
  });

  test("the mind's own name is not checked here (speaking of itself by name is detectors.ts wrongPerson)", () => {
    expect(wrongAttribution("Hobb Ferrant forged the ferry chain.", attributionSources([SYSTEM, TURN], PEOPLE, ["Who forged the ferry chain?"], "Hobb Ferrant"))).toBeNull();
  });
});
