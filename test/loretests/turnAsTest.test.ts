import { describe, expect, test } from "bun:test";
import { appendCase, turnAsTestCase, wordsToKeep } from "../../studio/pages/turnAsTest.ts";
import { parseSuites } from "../../src/loretests/loadSuites.ts";

describe("a playground conversation saved as a test case", () => {
  const mind = { id: "mind_1", entityName: "Garrick Thorne" };
  const turns = [
    { player: "Evening!", reply: 'Evening, friend: "sit down".', lore: [], prompt: "" },
    {
      player: "Who brews the porter?",
      reply: "Why, I do! Wend Water, the finest in Thornhaven, and Tobias Crane owes me for ten mugs.",
      lore: [{ documentName: "The Rusty Tankard" }, { documentName: "The Rusty Tankard" }, { documentName: "Tankard Talk" }],
      prompt: "The house porter, Wend Water, is dark. The longest tab belongs to Tobias Crane. Thornhaven is a town.",
    },
  ];

  test("the earlier turns become history, the last the turn; the lore that reached the prompt becomes knowsFrom, its names in the reply mentions", () => {
    const yaml = appendCase(null, turnAsTestCase(mind, turns));
    const [c] = parseSuites([{ file: "studio.test.yaml", text: yaml }]);
    expect(c.case).toEqual({
      name: "Garrick Thorne: Who brews the porter?",
      mind: "mind_1",
      history: [
        { role: "player", text: "Evening!" },
        { role: "npc", text: 'Evening, friend: "sit down".' },
      ],
      turns: [{ say: "Who brews the porter?", expect: { knowsFrom: ["The Rusty Tankard", "Tankard Talk"], mentions: ["Wend Water", "Thornhaven", "Tobias Crane"] } }],
    });
  });

  test("added below an existing draft's cases; a draft without tests: starts a suite", () => {
    const one = turnAsTestCase(mind, turns.slice(0, 1));
    const draft = appendCase(appendCase("", one), one);
    expect(parseSuites([{ file: "d.test.yaml", text: draft }]).length).toBe(2);
    expect(appendCase("# notes only", one).startsWith("tests:\n")).toBe(true);
  });

  test("words to keep: names the lore also holds, not a lone word opening a sentence, at most three", () => {
    expect(wordsToKeep("Ale is fine. Ask Mara Vey about Ferro, and Tobias.", "mara vey sails; ale; ferro; tobias; nan")).toEqual(["Ferro", "Tobias"]);
    expect(wordsToKeep("Ale is fine, said Mara Vey.", "mara vey")).toEqual(["Mara Vey"]);
    expect(wordsToKeep("Nan, Nan and Nan: Ferro Gate, Ferro Lund, Ferro Marsh, Ferro Dock.", "ferro gate ferro lund ferro marsh ferro dock")).toEqual(["Ferro Gate", "Ferro Lund", "Ferro Marsh"]);
  });
});
