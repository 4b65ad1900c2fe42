import type { ChatMessage } from "./types.ts";

/** Markup a chat template adds around one message, rounded up (as LlmEngine's estimate). */
export const TEMPLATE_TOKENS_PER_MESSAGE = 16;

/**
 * An upper bound of a text's tokens without its tokenizer: its UTF-8 bytes. A byte-level BPE or a
 * SentencePiece vocabulary with byte fallback never needs more than one token per byte (plus a
 * leading-space piece, covered by the per-message allowance). Loose (~4× for English), so it is only
 * the fallback when the server has no /tokenize.
 */
export function byteBound(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** A typical count (~4 characters a token for English), for fitting prompts, not for credits. */
export function typicalTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function chatBound(messages: ChatMessage[], count: (text: string) => number): number {
  return messages.reduce((n, m) => n + count(m.content) + TEMPLATE_TOKENS_PER_MESSAGE, TEMPLATE_TOKENS_PER_MESSAGE);
}
