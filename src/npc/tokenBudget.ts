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

/**
 * The share of the prompt budget a mind's static prompt (system text and shared lore) may take; the
 * rest is the turn's (the player's line, its lore, the conversation). Within it nothing is cut, so at
 * the default context (2,048, 200-token replies) a mind keeps a ~600-token persona and all its shared
 * lore (itself at most a third of the budget: sharedLore.ts).
 */
export const STATIC_SHARE = 2 / 3;
/** The shortest reply cap a small context may cut a mind's to (a couple of sentences); a mind that asks for less keeps its own. */
export const MIN_REPLY_TOKENS = 48;

/** Tokens the prompt may use: the context less the reply and the template's slack. */
export function promptBudget(contextSize: number, replyTokens: number): number {
  return contextSize - replyTokens - TEMPLATE_SLACK;
}

/** Tokens a mind's static prompt may take (STATIC_SHARE of the prompt budget). */
export function staticBudget(contextSize: number, replyTokens: number): number {
  return Math.floor(Math.max(0, promptBudget(contextSize, replyTokens)) * STATIC_SHARE);
}

/**
 * The context a turn's prompt and reply must fit: the generation backend's — the local engine's
 * context, or a remote pool's (the smallest any of its servers reported, since failover and bounded
 * load may send a conversation to any of them) — else the configured one (no model loaded).
 */
export function generationContext(ctx: Pick<AppContext, "generation" | "config">): number {
  return ctx.generation?.contextSize ?? ctx.config.contextSize;
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

/**
 * A whole chat's tokens: the backend's own count (template included) when there is one, else the estimate per message.
 * The speaker matters for a model without a chat template, whose transcript is laid out around the mind's name.
 */
export function chatTokens(ctx: Pick<AppContext, "llm" | "generation">, messages: ChatMessage[], speaker?: string): number {
  if (ctx.generation) return ctx.generation.countChatTokens(messages, speaker);
  const count = tokenCounter(ctx);
  return messages.reduce((n, m) => n + count(m.content) + MESSAGE_OVERHEAD, 0);
}
