import type { ChatHistoryItem, Token } from "node-llama-cpp";
import { commonPrefixLength } from "./commonPrefix.ts";
import { toChatHistory } from "./toChatHistory.ts";
import type { ChatMessage } from "./types.ts";

export interface StaticPrefix {
  /** Checksum of the tokens: names the prefix snapshot. */
  key: string;
  tokens: Token[];
}

/**
 * The part of a prompt every conversation with a mind starts with: the system message as the
 * template renders it, up to where the first user turn's own text begins (found by rendering two
 * different user lines after it, so it works for any template). Cached per system text (bounded).
 */
export class StaticPrefixes {
  private readonly cache = new Map<string, StaticPrefix | null>();

  constructor(private readonly maxEntries = 1024) {}

  get(messages: readonly ChatMessage[], tokenize: (history: ChatHistoryItem[]) => Token[]): StaticPrefix | null {
    const system = messages[0]?.role === "system" ? messages[0].content : null;
    if (system === null) return null;
    let prefix = this.cache.get(system);
    if (prefix === undefined) {
      const render = (text: string) => tokenize(toChatHistory([{ role: "system", content: system }, { role: "user", content: text }]));
      const a = render("a");
      const tokens = a.slice(0, commonPrefixLength(a, render("b")));
      prefix = tokens.length ? { key: Bun.hash.xxHash64(new Uint32Array(tokens)).toString(16), tokens } : null;
      this.cache.set(system, prefix);
      if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    }
    return prefix;
  }
}
