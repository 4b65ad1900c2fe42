import type { TextModel } from "../../generation/types.ts";
import type { FinishReason } from "../../llm/types.ts";
import { groundedDrafts } from "./groundedDrafts.ts";
import { inMindsVoice } from "./memoryVoice.ts";
import { playerStatements, withMissedStatements, withoutBorrowedSubjects } from "./playerStatements.ts";
import { sanitiseDrafts } from "./sanitiseDrafts.ts";
import { DEFAULT_SUMMARY_MAX_TOKENS, SUMMARY_SCHEMA, summaryPrompt } from "./summaryPrompt.ts";
import type { MemoryDraft } from "./types.ts";

export { DEFAULT_SUMMARY_MAX_TOKENS, SUMMARY_SCHEMA } from "./summaryPrompt.ts";

/** Below this many completion tokens a summary cannot hold one memory: not worth generating. */
const MIN_COMPLETION_TOKENS = 16;
/** The answer's share a long session cannot take: ~4 memories of the grammar's length. */
const MIN_ANSWER_TOKENS = 192;
/** Room a session needs beside the worked example for the example to be worth its tokens. */
const MIN_SESSION_TOKENS = 128;

/**
 * Summarises a finished session into memories about the player, under a JSON
 * grammar (summaryPrompt.ts: instructions, a worked example, the transcript).
 * The transcript keeps its newest messages when the whole does not fit the
 * context beside the answer's reserve. Whatever the model writes is validated
 * (sanitiseDrafts), and memories not taken from the session are dropped
 * (groundedDrafts), as are sentences not in the mind's voice (memoryVoice.ts: a line copied, a first person) and
 * sentences that made the player the subject of what they said of someone else; a statement of the player's about
 * themselves with a name or a number no memory holds is added (memoriesOfSummary). Junk, cut-off JSON or an empty
 * reply give those statements alone (often `memories: []`), never an error. Errors of the engine itself (e.g. disposed) are thrown. `finishReason` is the generation's
 * (absent when nothing was generated); "abort": the summary was cut before its end (e.g. shutdown).
 *
 * `conversationKey`: which sequence to use (the memory-summary job's own key per player: summarisePending.ts).
 */
export async function summariseSession(
  llm: TextModel,
  input: { mindName: string; playerId: string; messages: { role: "user" | "assistant"; content: string }[] },
  opts: { signal?: AbortSignal; timeoutMs?: number; maxTokens?: number; conversationKey?: string; seed?: number } = {},
): Promise<{ memories: MemoryDraft[]; promptTokens: number; completionTokens: number; finishReason?: FinishReason }> {
  const messages = input.messages.filter((m) => typeof m.content === "string" && m.content.trim() !== "");
  if (!messages.some((m) => m.role === "user")) return { memories: [], promptTokens: 0, completionTokens: 0 };

  // Fit the prompt and the answer into one sequence. The session comes first: the answer gets what is left, but
  // never less than `reserve` (a few memories; most real summaries use ~100 tokens). The oldest messages go first.
  const budget = llm.contextSize;
  let maxTokens = Math.max(1, Math.floor(opts.maxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS));
  const reserve = Math.min(maxTokens, MIN_ANSWER_TOKENS);
  // The worked example only when the context holds it beside the answer's reserve and a short session.
  const example = llm.countChatTokens(summaryPrompt(input.mindName, [], true)) + reserve + MIN_SESSION_TOKENS <= budget;
  const promptFor = (mindName: string, msgs: typeof messages) => summaryPrompt(mindName, msgs, example);
  let kept = messages;
  let prompt = promptFor(input.mindName, kept);
  let promptTokens = llm.countChatTokens(prompt);
  while (promptTokens + reserve > budget && kept.length > 1) {
    const drop = Math.max(1, Math.floor(kept.length / 4));
    kept = kept.slice(drop);
    prompt = promptFor(input.mindName, kept);
    promptTokens = llm.countChatTokens(prompt);
  }
  // One message still too long: keep its end (the newest part), shrinking by the measured overshoot.
  const fixed = promptTokens + reserve > budget ? llm.countChatTokens(promptFor(input.mindName, [{ ...kept[0], content: "" }])) : 0;
  for (let attempts = 0; promptTokens + reserve > budget && attempts < 8; attempts++) {
    const only = kept[0];
    const ratio = (0.9 * Math.max(0, budget - reserve - fixed)) / Math.max(1, promptTokens - fixed);
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
  const memories = memoriesOfSummary(r.text, input.mindName, kept, { example, stopped: r.finishReason === "abort" });
  return { memories, promptTokens: r.promptTokens, completionTokens: r.completionTokens, finishReason: r.finishReason };
}

/**
 * What a summary's text leaves as memories: validated (sanitiseDrafts), taken from the session (groundedDrafts), in
 * the mind's voice (memoryVoice.ts), no sentence that made the player the subject of what they said of someone else,
 * then each statement of the player's about themselves that holds a name or a number none of them holds
 * (playerStatements.ts). `stopped`: the generation was cut before its end (shutdown): nothing is added, the session
 * is summarised again at the next start.
 */
export function memoriesOfSummary(
  text: string,
  mindName: string,
  messages: { role: "user" | "assistant"; content: string }[],
  opts: { example: boolean; stopped?: boolean },
): MemoryDraft[] {
  const drafts = inMindsVoice(groundedDrafts(sanitiseDrafts(parseModelJson(text)), mindName, messages, { example: opts.example }), mindName, messages);
  const statements = playerStatements(mindName, messages);
  const kept = withoutBorrowedSubjects(drafts, statements);
  return opts.stopped ? kept : withMissedStatements(kept, statements);
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
