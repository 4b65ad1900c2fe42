import { describe, expect, test } from "bun:test";
import { baseForm, SECOND_PERSON_CACHED, secondPersonCached, toSecondPerson } from "../../src/npc/prompt/secondPerson.ts";
import { personaParts } from "../../src/npc/prompt/systemPrompt.ts";
import { wrongPerson } from "../../src/npc/replies/detectors.ts";

describe("a persona addressed to its mind", () => {
  test.each([
    ["Garrick loves a story more than he loves money, remembers every face, and cannot keep a rumour to himself.", "Garrick Thorne", "You love a story more than you love money, remember every face, and cannot keep a rumour to yourself."],
    ["Mara was born on a salt barge and has never slept a week on land.", "Mara Vey", "You were born on a salt barge and have never slept a week on land."],
    ["Hesk was made captain the next year. She now also leads the search.", "Captain Ilsa Hesk", "You were made captain the next year. You now also lead the search."],
    ["Brisk and fair. Odile answers questions plainly and hates waste.", "Odile Marsh", "Brisk and fair. You answer questions plainly and hate waste."],
    ["Garrick's porter is famous.", "Garrick Thorne", "Your porter is famous."],
    ["He carries the keys and watches the gate.", "Tobias Crane", "You carry the keys and watch the gate."],
    // another person's sentence, and the pronouns before the mind becomes the subject, stay as written
    ["Crennan confessed to him on his deathbed what he had done, and Aldous has carried the secret ever since.", "Brother Aldous", "Crennan confessed to him on his deathbed what he had done, and you have carried the secret ever since."],
    ["She is Captain Hesk's aunt.", "Nan Wicker", "You are Captain Hesk's aunt."],
    // no subject, nothing to change
    ["Warm and chatty, full of anecdotes.", "Garrick Thorne", "Warm and chatty, full of anecdotes."],
  ])("%s", (text, name, want) => {
    expect(toSecondPerson(text, name)).toBe(want);
  });

  test.each([
    ["loves", "love"],
    ["carries", "carry"],
    ["watches", "watch"],
    ["goes", "go"],
    ["is", "are"],
    ["has", "have"],
    ["always", null],
    ["glass", null],
    ["bus", null],
  ])("baseForm(%s) = %s", (verb, want) => {
    expect(baseForm(verb)).toBe(want);
  });

  test("the system text of a mind written in the third person no longer speaks of it by name", () => {
    const parts = personaParts({
      entityName: "Marisol Ortega",
      role: "Glassblower",
      personality: "Marisol is proud of her furnace. Marisol tells buyers the truth about the glass.",
      backstory: "Marisol came to the glassworks at twelve.",
      speakingStyle: null,
      location: null,
      relationships: [],
      knowledgeDescription: null,
      hints: ["Marisol offers a bead to children."],
      restrictions: [],
      behaviour: null,
    } as never);
    const text = [parts.personality, parts.backstory, ...parts.hints].join("\n");
    expect(text).toBe("Personality: You are proud of your furnace. You tell buyers the truth about the glass.\nBackstory: You came to the glassworks at twelve.\n- You offer a bead to children.");
    expect(wrongPerson(text, { mindName: "Marisol Ortega", otherNames: [], playerLine: "" })).toBeNull();
    expect(parts.identity).toContain("never of yourself by name");
  });
});

describe("the rewrite cache in a big world", () => {
  test("1,000 minds of 10 persona lines each stay rewritten; past the bound the oldest go, and the cache stays bounded", () => {
    const line = (m: number, i: number) => `Mind${m} keeps watch over the ${i}th gate of the harbour and never sleeps.`;
    for (let m = 0; m < 1000; m++) for (let i = 0; i < 10; i++) toSecondPerson(line(m, i), `Mind${m}`);
    for (let m = 0; m < 1000; m++) for (let i = 0; i < 10; i++) expect(secondPersonCached(line(m, i), `Mind${m}`)).toBe(true);
    const before = toSecondPerson(line(1, 0), "Mind1");
    expect(before.startsWith("You keep watch over the 0th gate")).toBe(true);
    // twice the bound more: every older text has gone, the newest is held, and a text rewritten again is the same
    for (let k = 0; k < SECOND_PERSON_CACHED * 2; k++) toSecondPerson(`Later ${k} walks.`, "Later");
    expect(secondPersonCached(line(2, 0), "Mind2")).toBe(false);
    expect(secondPersonCached(`Later ${SECOND_PERSON_CACHED * 2 - 1} walks.`, "Later")).toBe(true);
    expect(toSecondPerson(line(1, 0), "Mind1")).toBe(before);
  });
});
