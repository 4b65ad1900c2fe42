import type { TextModel } from "../../generation/types.ts";
import type { ChatMessage } from "../../llm/types.ts";
import { sanitiseDrafts } from "./sanitiseDrafts.ts";
import { MAX_MEMORIES_PER_SUMMARY, type MemoryDraft } from "./types.ts";

/** Completion budget of a summary: ~8 memories of ~40 tokens in JSON. */
export const DEFAULT_SUMMARY_MAX_TOKENS = 512;
/** A message longer than this (characters) is cut in the transcript. */
const MAX_MESSAGE_CHARS = 2_000;
/** Below this many completion tokens a summary cannot hold one memory: not worth generating. */
const MIN_COMPLETION_TOKENS = 16;

/**
 * The grammar the model writes under. node-llama-cpp's JSON-schema grammar has no
 * integer bounds, so importance is an enum; lengths keep junk output short.
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
          text: { type: "string", maxLength: 300 },
          importance: { enum: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
          topics: { type: "array", maxItems: 4, items: { type: "string", maxLength: 32 } },
        },
        required: ["text", "importance", "topics"],
      },
    },
  },
  required: ["memories"],
} as const;

// Short on purpose: it is paid for at every checkpoint, and small models follow short prompts better.
function systemPrompt(mindName: string): string {
  return [
    `You keep ${mindName}'s memory of a player. From the conversation, list the facts worth remembering about THE PLAYER:`,
    `who they are, what they want or like, promises and deals, and how they treated ${mindName}.`,
    'One short sentence each ("The player ..."). importance: 1 trivia to 10 life-changing. topics: 1-3 lowercase words.',
    `Skip small talk and anything not about the player. At most ${MAX_MEMORIES_PER_SUMMARY}; an empty list if none.`,
  ].join(" ");
}

function transcript(mindName: string, messages: { role: "user" | "assistant"; content: string }[]): string {
  return messages
    .map((m) => {
      const text = m.content.length > MAX_MESSAGE_CHARS ? `${m.content.slice(0, MAX_MESSAGE_CHARS)}…` : m.content;
      return `${m.role === "user" ? "Player" : mindName}: ${text.trim()}`;
    })
    .join("\n");
}

function promptFor(mindName: string, messages: { role: "user" | "assistant"; content: string }[]): ChatMessage[] {
  return [
    { role: "system", content: systemPrompt(mindName) },
    { role: "user", content: `${transcript(mindName, messages)}\n\nMemories about the player, as JSON:` },
  ];
}

/**
 * Summarises a finished session into memories about the player, under a JSON
 * grammar. The transcript keeps its newest messages when the whole does not fit
 * the context beside `maxTokens`. Whatever the model writes is validated
 * (sanitiseDrafts): junk, cut-off JSON or an empty reply give `memories: []`,
 * never an error. Errors of the engine itself (e.g. disposed) are thrown.
 *
 * `conversationKey`: which sequence to use. Passing the ending session's own key
 * (project:mind:player) reuses its sequence, whose cache is useless after the
 * checkpoint, instead of evicting another player's conversation.
 */
export async function summariseSession(
  llm: TextModel,
  input: { mindName: string; playerId: string; messages: { role: "user" | "assistant"; content: string }[] },
  opts: { signal?: AbortSignal; timeoutMs?: number; maxTokens?: number; conversationKey?: string; seed?: number } = {},
): Promise<{ memories: MemoryDraft[]; promptTokens: number; completionTokens: number }> {
  const messages = input.messages.filter((m) => typeof m.content === "string" && m.content.trim() !== "");
  if (!messages.some((m) => m.role === "user")) return { memories: [], promptTokens: 0, completionTokens: 0 };

  // Fit the prompt and the answer into one sequence: drop the oldest messages first.
  const budget = llm.contextSize;
  let maxTokens = Math.max(1, Math.floor(opts.maxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS));
  let kept = messages;
  let prompt = promptFor(input.mindName, kept);
  let promptTokens = llm.countChatTokens(prompt);
  while (promptTokens + maxTokens > budget && kept.length > 1) {
    const drop = Math.max(1, Math.floor(kept.length / 4));
    kept = kept.slice(drop);
    prompt = promptFor(input.mindName, kept);
    promptTokens = llm.countChatTokens(prompt);
  }
  // One message still too long: keep its end (the newest part), shrinking by the measured overshoot.
  const fixed = promptTokens + maxTokens > budget ? llm.countChatTokens(promptFor(input.mindName, [{ ...kept[0], content: "" }])) : 0;
  for (let attempts = 0; promptTokens + maxTokens > budget && attempts < 8; attempts++) {
    const only = kept[0];
    const ratio = (0.9 * Math.max(0, budget - maxTokens - fixed)) / Math.max(1, promptTokens - fixed);
    const chars = Math.floor(only.content.length * ratio);
    if (chars <= 0) break;
    kept = [{ ...only, content: only.content.slice(only.content.length - chars) }];
    prompt = promptFor(input.mindName, kept);
    promptTokens = llm.countChatTokens(prompt);
  }
  maxTokens = Math.min(maxTokens, budget - promptTokens);
  if (maxTokens < MIN_COMPLETION_TOKENS) return { memories: [], promptTokens: 0, completionTokens: 0 };

  const r = await llm.generate({
    conversationKey: opts.conversationKey ?? `memory-summary:${input.playerId}`,
    messages: prompt,
    maxTokens,
    temperature: 0.2,
    jsonSchema: SUMMARY_SCHEMA,
    signal: opts.signal,
    timeoutMs: opts.timeoutMs,
    seed: opts.seed,
  });
  return { memories: sanitiseDrafts(parseModelJson(r.text)), promptTokens: r.promptTokens, completionTokens: r.completionTokens };
}

/**
 * The model's JSON, or the longest prefix of complete memories when the output
 * was cut by maxTokens (`{"memories":[{…},{…},{"te` → the first two). null if none.
 */
export function parseModelJson(text: string): unknown {
  const t = text.trim();
  if (!t) return null;
  try {
    return JSON.parse(t);
  } catch {
    // fall through to salvage
  }
  let end = t.lastIndexOf("}");
  for (let attempts = 0; end > 0 && attempts < 64; attempts++) {
    try {
      return JSON.parse(`${t.slice(0, end + 1)}]}`);
    } catch {
      end = t.lastIndexOf("}", end - 1);
    }
  }
  return null;
}
