import type { ChatMessage } from "../../llm/types.ts";
import { MAX_MEMORIES_PER_SUMMARY } from "./types.ts";

/** A player's message longer than this (characters) is cut in the transcript. */
const MAX_MESSAGE_CHARS = 2_000;
/**
 * The NPC's replies are cut shorter: the memories are about the player, and a small model's long, inventive
 * replies ("you're going to pay me 20 golds") otherwise turn into memories in place of what the player said.
 */
const MAX_REPLY_CHARS = 160;
/** Longest memory the grammar lets a model write: one short sentence ("The player owes Garrick 30 gold for the room."). */
export const SUMMARY_TEXT_MAX = 120;
const TOPICS_MAX = 3;
const TOPIC_MAX = 24;

/**
 * The grammar the model writes under. node-llama-cpp's JSON-schema grammar has no integer bounds, so
 * importance is an enum. The string caps are what keep a small model's summary whole: measured on
 * SmolLM2-135M, a 300-character text ran into repetition ("I'll pay you back next week." ×5) until the cap,
 * and a token budget then cut the JSON inside that string (0 memories). At 120 characters a memory closes
 * within ~40 tokens, so a cut by maxTokens only ever loses the memory being written.
 */
export const SUMMARY_SCHEMA = {
  type: "object",
  properties: {
    memories: {
      type: "array",
      maxItems: MAX_MEMORIES_PER_SUMMARY,
      items: {
        type: "object",
        properties: {
          text: { type: "string", maxLength: SUMMARY_TEXT_MAX },
          importance: { enum: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
          topics: { type: "array", maxItems: TOPICS_MAX, items: { type: "string", maxLength: TOPIC_MAX } },
        },
        required: ["text", "importance", "topics"],
      },
    },
  },
  required: ["memories"],
} as const;

/**
 * Completion budget: room for every memory the grammar allows at a pessimistic ~3 characters a token
 * (text, topics and JSON punctuation), so a full summary is never cut.
 */
export const DEFAULT_SUMMARY_MAX_TOKENS = Math.ceil((MAX_MEMORIES_PER_SUMMARY * (SUMMARY_TEXT_MAX + TOPICS_MAX * TOPIC_MAX + 48)) / 3);

type Turn = { role: "user" | "assistant"; content: string };

// Short on purpose: it is paid for at every checkpoint, and small models follow short prompts better.
// "Starts with The player" and "exact names and numbers" are what made a 135M model keep "Mara" and "30 gold"
// (bench/quality.ts --summary, BENCHMARKS.md "Memory summaries").
function instructions(mindName: string): string {
  return [
    `You keep ${mindName}'s memory of one player. Read the conversation and list what ${mindName} should remember about THE PLAYER:`,
    "their name, where they come from, what they want, what they promised or owe, what they like or dislike, how they treated",
    `${mindName}. Each memory is one short sentence that starts with "The player" and keeps names and numbers exactly as said.`,
    `Never repeat a memory. Leave out small talk and what ${mindName} said about themselves. importance: 1 trivia to 10`,
    `life-changing. topics: 1-3 lowercase words. At most ${MAX_MEMORIES_PER_SUMMARY} memories; an empty list if nothing is worth keeping.`,
  ].join(" ");
}

/**
 * One worked example (a different NPC, player and facts than any real session): small models copy the shape
 * of an answer far better than they follow a description of it.
 */
export const EXAMPLE_TRANSCRIPT: Turn[] = [
  { role: "user", content: "Hi, I'm Doran from the hill farms. Do you sell rope?" },
  { role: "assistant", content: "Ten feet for a silver." },
  { role: "user", content: "Give me fifty feet. I owe you 5 silver then, I'll pay on Monday. I hate spiders, by the way." },
  { role: "assistant", content: "Don't we all. Monday it is." },
];
/**
 * The NPC of the example: the speaker of its replies and "the shopkeeper" of its answer. Small models then call
 * any NPC "the shopkeeper" ("The player owes the shopkeeper 30 gold.": SmolLM2-135M, 4 of 6 seeds).
 */
export const EXAMPLE_MIND = "Shopkeeper";
export const EXAMPLE_MEMORIES = [
  { text: "The player's name is Doran.", importance: 6, topics: ["name"] },
  { text: "The player comes from the hill farms.", importance: 4, topics: ["origin"] },
  { text: "The player owes the shopkeeper 5 silver for rope and will pay on Monday.", importance: 7, topics: ["debt", "rope"] },
  { text: "The player hates spiders.", importance: 3, topics: ["dislikes"] },
];
const EXAMPLE_ANSWER = JSON.stringify({ memories: EXAMPLE_MEMORIES });
/**
 * The example's facts about its player: names, places, things, amounts and days. A memory that holds one the
 * session never said was copied from the example (groundedDrafts.ts); the rest of the example's words ("name",
 * "owes", "comes from", "hates", "pay") are the shape every answer shares. Every example memory holds one.
 */
export const EXAMPLE_FACTS = ["Doran", "hill farms", "rope", "ten feet", "silver", "fifty feet", "Monday", "spiders"];
/** Words of the example that a real summary must not contain (bench: "copied the example"). */
export const EXAMPLE_MARKERS = /\bDoran\b|spider|hill farms/i;

export function transcript(mindName: string, messages: Turn[]): string {
  return messages
    .map((m) => {
      const max = m.role === "user" ? MAX_MESSAGE_CHARS : MAX_REPLY_CHARS;
      const text = m.content.length > max ? `${m.content.slice(0, max).trimEnd()}…` : m.content;
      return `${m.role === "user" ? "Player" : mindName}: ${text.trim()}`;
    })
    .join("\n");
}

const ask = (mindName: string, messages: Turn[]) => `Conversation:\n${transcript(mindName, messages)}\n\nMemories about the player, as JSON:`;

/**
 * The summary prompt: instructions, the worked example as one exchange (unless `example` is false: a context
 * too small to hold it beside a session), then the session to summarise.
 */
export function summaryPrompt(mindName: string, messages: Turn[], example = true): ChatMessage[] {
  return [
    { role: "system", content: instructions(mindName) },
    ...(example
      ? [
          { role: "user" as const, content: ask(EXAMPLE_MIND, EXAMPLE_TRANSCRIPT) },
          { role: "assistant" as const, content: EXAMPLE_ANSWER },
        ]
      : []),
    { role: "user", content: ask(mindName, messages) },
  ];
}
