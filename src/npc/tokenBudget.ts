import type { AppContext } from "../core/context.ts";
import type { ChatMessage } from "../llm/types.ts";

/**
 * The prompt's token budget, in one place: what the chat template costs
 * beyond the text it wraps, and how text is counted when no model is loaded.
 * (The chunker's own estimate, lore/chunker.ts, sizes chunks for the embedder
 * before any chat model is involved; it is not a prompt budget.)
 */

/** Tokens kept free for the chat template's own markup around the whole prompt. */
export const TEMPLATE_SLACK = 32;
/** A history message's template markup (role header and separators). */
export const MESSAGE_OVERHEAD = 8;
/** This turn's markup: the system and user messages' headers and the assistant's opening. */
export const TURN_OVERHEAD = 16;
/** A lore note's framing inside the user message. */
export const LORE_NOTE_OVERHEAD = 4;
/** Without a model's tokenizer: about this many characters a token. */
export const CHARS_PER_TOKEN = 4;

/** Tokens the prompt may use: the context less the reply and the template's slack. */
export function promptBudget(contextSize: number, replyTokens: number): number {
  return contextSize - replyTokens - TEMPLATE_SLACK;
}

/** Token counter: the generation backend's (or model's) tokenizer when there is one, else ~CHARS_PER_TOKEN characters a token. */
export function tokenCounter(ctx: Pick<AppContext, "llm" | "generation">): (text: string) => number {
  const llm = ctx.generation ?? ctx.llm;
  const estimate = (t: string) => Math.ceil(t.length / CHARS_PER_TOKEN);
  if (!llm) return estimate;
  return (t) => {
    try {
      return llm.countTokens(t);
    } catch {
      return estimate(t); // a failed or disposed model: the generation step answers 503
    }
  };
}

/** A whole chat's tokens: the backend's own count (template included) when there is one, else the estimate per message. */
export function chatTokens(ctx: Pick<AppContext, "llm" | "generation">, messages: ChatMessage[]): number {
  if (ctx.generation) return ctx.generation.countChatTokens(messages);
  const count = tokenCounter(ctx);
  return messages.reduce((n, m) => n + count(m.content) + MESSAGE_OVERHEAD, 0);
}
