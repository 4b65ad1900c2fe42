import { describe, expect, test } from "bun:test";
import { addressedMind, continueChance, nextSpeaker, type SpeakerCandidate, type SpeakerInput } from "../../src/scenes/nextSpeaker.ts";

const m = (mindId: string, name: string, talkativeness = 0.5, topics: string[] = []): SpeakerCandidate => ({ mindId, name, talkativeness, topics });
const garrick = m("g", "Garrick", 0.5, ["innkeeper", "tavern", "history"]);
const elena = m("e", "Elena Vask", 0.5, ["smugglers", "tunnels"]);
const bram = m("b", "Old Bram", 0.5, ["fishing", "river"]);
const mute = m("s", "Silas", 0, ["ledgers"]);
const table = [garrick, elena, bram];
const input = (over: Partial<SpeakerInput>): SpeakerInput => ({ present: table, lastSpeakerId: null, lastLine: null, position: 0, roll: 0, draw: 0, ...over });

describe("who speaks next", () => {
  const rows: Array<[string, Partial<SpeakerInput>, string | null, string | null]> = [
    ["the request's speaker opens the turn", { requested: "b", lastLine: "Garrick, a word?" }, "b", "requested"],
    ["a requested speaker not present: nobody", { requested: "zz" }, null, null],
    ["the request's speaker only chooses the first line", { requested: "b", position: 1, lastSpeakerId: "b", lastLine: "Elena knows.", roll: 0.99 }, "e", "addressed"],
    ["addressed by name answers", { lastLine: "What do you say, garrick?" }, "g", "addressed"],
    ["addressed by a later word of the name", { lastLine: "Ask Vask about it." }, "e", "addressed"],
    ["the first name in the line wins", { lastLine: "Bram and Garrick both know." }, "b", "addressed"],
    ["a title is not a name", { lastLine: "That old fool.", draw: 0.99 }, "b", "talkativeness"],
    ["a name inside another word is not an address", { lastLine: "Garricks are common here.", draw: 0 }, "g", "talkativeness"],
    ["a speaker naming itself does not pick itself", { lastSpeakerId: "g", lastLine: "I, Garrick, swear it.", draw: 0 }, "e", "talkativeness"],
    ["addressed wins over the wind-down", { position: 5, lastSpeakerId: "e", lastLine: "Garrick?", roll: 0.999 }, "g", "addressed"],
    ["the player may address the last speaker again", { lastSpeakerId: null, lastLine: "Garrick, go on." }, "g", "addressed"],
    ["never the last speaker twice in a row", { present: [garrick, elena], lastSpeakerId: "g", lastLine: "Well then.", draw: 0 }, "e", "talkativeness"],
    ["alone and just spoke: nobody", { present: [garrick], lastSpeakerId: "g", lastLine: "Well." }, null, null],
    ["the first line of a turn always has a speaker, even among the silent", { present: [mute, m("t", "Tam", 0)], lastLine: "Hello?" }, "s", "talkativeness"],
    ["after the first line the silent stay silent", { present: [mute, m("t", "Tam", 0)], position: 1, lastSpeakerId: "s", lastLine: "Hm." }, null, null],
    ["the chain stops when the roll passes its chance", { position: 1, lastSpeakerId: "g", lastLine: "Quiet night.", roll: 0.6 }, null, null],
    ["the chain goes on under its chance", { position: 1, lastSpeakerId: "g", lastLine: "Quiet night.", roll: 0.59, draw: 0 }, "e", "talkativeness"],
  ];
  for (const [name, over, mindId, reason] of rows) {
    test(name, () => {
      const pick = nextSpeaker(input(over));
      expect(pick?.mindId ?? null).toBe(mindId);
      expect((pick?.reason ?? null) as string | null).toBe(reason);
    });
  }

  test("each further line is less likely, and a turn of 6 unaddressed lines happens less than 1 time in 50", () => {
    const chances = [1, 2, 3, 4, 5].map(continueChance);
    for (let i = 1; i < chances.length; i++) expect(chances[i]).toBeLessThan(chances[i - 1]);
    expect(continueChance(0)).toBe(1);
    expect(chances.reduce((a, b) => a * b, 1)).toBeLessThan(1 / 50);
  });

  test("talkativeness: over an even spread of draws each mind speaks in proportion to its weight", () => {
    const present = [m("a", "Anna", 0.9), m("b", "Bert", 0.3), m("c", "Cara", 0)];
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 1000; i++) counts[nextSpeaker(input({ present, lastLine: "So.", position: 1, roll: 0, draw: (i + 0.5) / 1000 }))!.mindId]++;
    expect(counts).toEqual({ a: 750, b: 250, c: 0 });
  });

  test("relevance: the mind whose topics the last line touches gets the larger share", () => {
    const present = [m("a", "Anna", 0.5, ["smugglers", "tunnels"]), m("b", "Bert", 0.5, ["fishing"])];
    const counts: Record<string, number> = { a: 0, b: 0 };
    for (let i = 0; i < 1000; i++) counts[nextSpeaker(input({ present, lastLine: "The smugglers use tunnels.", roll: 0, draw: (i + 0.5) / 1000 }))!.mindId]++;
    // weights 0.5 × (1 + 2 × 1) and 0.5 × 1: three to one
    expect(counts).toEqual({ a: 750, b: 250 });
  });

  test("addressedMind reads whole words only, any case", () => {
    expect(addressedMind(table, "ELENA!", null)).toBe("e");
    expect(addressedMind(table, "elenas and bramble", null)).toBeNull();
    expect(addressedMind(table, null, null)).toBeNull();
  });
});
