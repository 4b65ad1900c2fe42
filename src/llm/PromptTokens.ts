import type { ChatHistoryItem, ChatWrapper, LlamaModel, Token } from "node-llama-cpp";
import { StaticPrefixes, type StaticPrefix } from "./staticPrefix.ts";
import { TokenCountCache } from "./TokenCountCache.ts";
import { toChatHistory } from "./toChatHistory.ts";
import { replyOpening } from "./transcriptChatWrapper.ts";
import type { ChatMessage } from "./types.ts";

/** Markup a chat template adds around one message (ChatML: `<|im_start|>role\n…<|im_end|>\n` ≈ 5 tokens), rounded up. */
const TEMPLATE_TOKENS_PER_MESSAGE = 16;

/**
 * A prompt as the engine's chat wrapper renders it, in tokens: the whole turn, its count, and the mind's static
 * prefix. Each takes the speaker, because a model without a chat template lays a turn out for the one who answers
 * (transcriptChatWrapper.ts: the example exchange and the re-laid notes follow the persona); a count or a prefix
 * rendered without the speaker is not the prompt that model reads.
 */
export class PromptTokens {
  private readonly counts = new TokenCountCache();
  private readonly prefixes = new StaticPrefixes();

  constructor(
    private readonly model: LlamaModel,
    private readonly wrapper: ChatWrapper,
  ) {}

  /** Tokens of plain text (cached). */
  count(text: string): number {
    return this.counts.get(text, (t) => this.model.tokenize(t).length);
  }

  /** An upper bound of `chatCount` from cached per-message counts plus a generous allowance for the template's markup. */
  estimate(messages: ChatMessage[]): number {
    return messages.reduce((n, m) => n + this.count(m.content) + TEMPLATE_TOKENS_PER_MESSAGE, TEMPLATE_TOKENS_PER_MESSAGE);
  }

  /** The history a generation continues (the reply's opening label included) and its tokens. */
  turn(messages: readonly ChatMessage[], speaker?: string): { history: ChatHistoryItem[]; tokens: Token[] } {
    const history = toChatHistory(messages, replyOpening(this.wrapper, speaker));
    return { history, tokens: this.render(history) };
  }

  chatCount(messages: readonly ChatMessage[], speaker?: string): number {
    return this.turn(messages, speaker).tokens.length;
  }

  /** The mind's static prefix of `messages` (its system message) as `speaker`'s turns begin. */
  prefix(messages: readonly ChatMessage[], speaker?: string): StaticPrefix | null {
    return this.prefixes.get(messages, (h) => this.render(h), replyOpening(this.wrapper, speaker));
  }

  private render(history: ChatHistoryItem[]): Token[] {
    return this.wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(this.model.tokenizer);
  }
}
