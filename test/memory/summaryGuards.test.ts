import { describe, expect, test } from "bun:test";
import { dropRepeatedSentences } from "../../src/npc/memory/memoryText.ts";
import { sanitiseDrafts } from "../../src/npc/memory/sanitiseDrafts.ts";
import { groundedDrafts } from "../../src/npc/memory/groundedDrafts.ts";
import { DEFAULT_SUMMARY_MAX_TOKENS, EXAMPLE_FACTS, EXAMPLE_MEMORIES, EXAMPLE_TRANSCRIPT, SUMMARY_SCHEMA, SUMMARY_TEXT_MAX, summaryPrompt } from "../../src/npc/memory/summaryPrompt.ts";

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

describe("groundedDrafts: a memory comes from the session, never from the prompt's worked example", () => {
  const d = (text: string) => ({ text, importance: 5, topics: [] });
  const mara = ["Hello! My name is Mara.", "Welcome to the Rusty Tankard, Mara!", "I owe you 30 gold for the room. Come back tomorrow?"];
  // Sessions that share the example's shape ("name", "owe", "pay", "come from", "hate"), the adversarial case.
  const tamsin = ["My name is Tamsin Orrick. I came up the north road.", "Welcome, Tamsin."];
  const debt = ["I owe you for the ale and 30 gold, I'll pay you back, I promise.", "You had better."];
  const spiders = ["I'm from the hills too, and I hate spiders.", "Who doesn't?"];
  const doran = ["My name is Doran, like my grandfather.", "A fine name."];
  const neighbour = ["The shopkeeper next door cheated me of 30 gold.", "He cheats everyone."];
  // [case, session, the model's memory, what is kept (null: dropped)]
  const cases: [string, string[], string, string | null][] = [
    ["a fact of the session", mara, "The player's name is Mara.", "The player's name is Mara."],
    ["a paraphrase keeping a number", mara, "The player has a debt of 30.", "The player has a debt of 30."],
    ["an invention sharing no word", mara, "I'm a dragon, I'm a dragon.", null],
    ["the worked example's fact", mara, "The player hates spiders.", null],
    ["the example's fact sharing one common word with the session", mara, "The player comes from the hill farms.", null],
    ["only the mind's own name in common", mara, "Garrick Thorne is grumpy.", null],
    ["the example's name where the session says 'name' (Gemma 3 270M, live)", tamsin, "The player's name is Doran.", null],
    ["the session's own name", tamsin, "The player's name is Tamsin Orrick.", "The player's name is Tamsin Orrick."],
    ["only the shape word 'name' in common", tamsin, "The player's name is unknown.", null],
    ["the example's origin where the session says where it came from", tamsin, "The player comes from the hill farms.", null],
    ["the example's creditor and nothing of the session (Qwen2.5-Coder-0.5B, live)", debt, "The player owes the shopkeeper.", null],
    ["the example's whole debt where the session owes and pays", debt, "The player owes the shopkeeper 5 silver for rope and will pay on Monday.", null],
    ["only shape words in common (owe, pay)", debt, "The player owes and will pay.", null],
    ["the session's debt in the example's shape", debt, "The player owes for the ale and will pay it back.", "The player owes for the ale and will pay it back."],
    ["the session's debt to 'the shopkeeper': the mind (SmolLM2-135M, live)", debt, "The player owes the shopkeeper 30 gold.", "The player owes Garrick Thorne 30 gold."],
    ["a shopkeeper the session spoke of stays one", neighbour, "The player was cheated by the shopkeeper next door.", "The player was cheated by the shopkeeper next door."],
    ["the example's fact the session said itself", spiders, "The player hates spiders.", "The player hates spiders."],
    ["an example fact the session said beside one it did not", spiders, "The player comes from the hill farms.", null],
    ["the example's name when it is the player's own", doran, "The player's name is Doran.", "The player's name is Doran."],
  ];
  for (const [name, session, text, kept] of cases)
    test(`${name} → ${kept === null ? "dropped" : "kept"}`, () => {
      const messages = session.map((content) => ({ content }));
      expect(groundedDrafts([d(text)], "Garrick Thorne", messages, { example: true })).toEqual(kept === null ? [] : [d(kept)]);
    });

  test("the example's facts and NPC count only when the prompt showed the example", () => {
    const messages = ["I owe you 30 gold."].map((content) => ({ content }));
    const copied = d("The player owes the shopkeeper 30 gold, and hates spiders.");
    expect(groundedDrafts([copied], "Garrick", messages, { example: true })).toEqual([]);
    expect(groundedDrafts([copied], "Garrick", messages, { example: false })).toEqual([copied]);
  });

  test("every example memory holds an example fact, and is dropped for a session made of its shape alone", () => {
    const example = [...EXAMPLE_TRANSCRIPT.map((m) => m.content), ...EXAMPLE_MEMORIES.map((m) => m.text)].join("\n").toLowerCase();
    for (const fact of EXAMPLE_FACTS) expect(example).toContain(fact.toLowerCase());
    const shapeOnly = ["My name is Kell. I come from the coast. I owe you and I'll pay, I hate rats, give me a way out."].map((content) => ({ content }));
    for (const m of EXAMPLE_MEMORIES) {
      expect(EXAMPLE_FACTS.some((f) => m.text.toLowerCase().includes(f.toLowerCase()))).toBe(true);
      expect(groundedDrafts([d(m.text)], "Garrick", shapeOnly, { example: true })).toEqual([]);
    }
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
