import { describe, expect, test } from "bun:test";
import { dropRepeatedSentences } from "../../src/npc/memory/memoryText.ts";
import { sanitiseDrafts } from "../../src/npc/memory/sanitiseDrafts.ts";
import { groundedDrafts } from "../../src/npc/memory/summariseSession.ts";
import { DEFAULT_SUMMARY_MAX_TOKENS, EXAMPLE_TRANSCRIPT, SUMMARY_SCHEMA, SUMMARY_TEXT_MAX, summaryPrompt } from "../../src/npc/memory/summaryPrompt.ts";

// The guards that keep a small real model's summary usable (measured in bench/quality.ts --summary).

describe("dropRepeatedSentences", () => {
  const cases: [string, string, string][] = [
    ["a degenerate loop keeps its first sentence", "I'll pay next week. I'll pay next week. I'll pay next week.", "I'll pay next week."],
    ["a cut-off repeat at the end goes too", "My name is Mara. I owe 30 gold. My name is Ma", "My name is Mara. I owe 30 gold."],
    ["repeats compare normalised (case, punctuation)", "The player is kind! the player is KIND.", "The player is kind!"],
    ["distinct sentences stay", "The player is Ada. She owes 3 gold.", "The player is Ada. She owes 3 gold."],
    ["a decimal point is not a sentence end that loses text", "The player owes 3.5 gold.", "The player owes 3.5 gold."],
    ["one sentence is untouched", "The player likes ale", "The player likes ale"],
  ];
  for (const [name, input, want] of cases) test(name, () => expect(dropRepeatedSentences(input)).toBe(want));

  test("sanitiseDrafts applies it to every memory", () => {
    expect(sanitiseDrafts({ memories: [{ text: "Owes gold. Owes gold. Owes gold.", importance: 5, topics: [] }] })).toEqual([{ text: "Owes gold.", importance: 5, topics: [] }]);
  });
});

describe("groundedDrafts", () => {
  const session = [
    { content: "Hello! My name is Mara." },
    { content: "Welcome to the Rusty Tankard, Mara!" },
    { content: "I owe you 30 gold for the room. Come back tomorrow?" },
  ];
  const d = (text: string) => ({ text, importance: 5, topics: [] });
  const cases: [string, string, boolean][] = [
    ["a fact of the session", "The player's name is Mara.", true],
    ["a paraphrase keeping a number", "The player has a debt of 30.", true],
    ["an invention sharing no word", "I'm a dragon, I'm a dragon.", false],
    ["the worked example's fact", "The player hates spiders.", false],
    ["the example's fact sharing one common word with the session", "The player comes from the hill farms.", false],
    ["only the mind's own name in common", "Garrick Thorne is grumpy.", false],
  ];
  for (const [name, text, kept] of cases)
    test(`${name} → ${kept ? "kept" : "dropped"}`, () => {
      expect(groundedDrafts([d(text)], "Garrick Thorne", session, EXAMPLE_TRANSCRIPT)).toEqual(kept ? [d(text)] : []);
    });
});

describe("summary prompt and grammar", () => {
  test("a memory's text is capped by the grammar, and the default budget holds every memory the grammar allows", () => {
    const item = SUMMARY_SCHEMA.properties.memories.items.properties;
    expect(item.text.maxLength).toBe(SUMMARY_TEXT_MAX);
    const perMemory = SUMMARY_TEXT_MAX + item.topics.maxItems * item.topics.items.maxLength;
    // ≥ 3 characters a token for every character the grammar can make a model write
    expect(DEFAULT_SUMMARY_MAX_TOKENS * 3).toBeGreaterThanOrEqual(SUMMARY_SCHEMA.properties.memories.maxItems * perMemory);
  });

  test("the worked example comes as its own exchange before the session, and can be left out", () => {
    const session = [{ role: "user" as const, content: "I am Ada." }];
    const withIt = summaryPrompt("Garrick", session);
    expect(withIt.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(JSON.parse(withIt[2].content).memories.length).toBeGreaterThan(0);
    expect(withIt[3].content).toBe("Conversation:\nPlayer: I am Ada.\n\nMemories about the player, as JSON:");
    expect(summaryPrompt("Garrick", session, false).map((m) => m.role)).toEqual(["system", "user"]);
  });
});
