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
 * User turns that differ from their first character and in their shape: a bare line, and a turn with lore notes
 * and the player's section (a transcript lays the two out differently: `Player: …` or `What <name> knows:` first).
 */
const PROBES = ["a", "b", "[Lore]\nAbout c: d\n\n[Player]\ne"];

/**
 * The part of a prompt every conversation with a mind starts with: the system message as the
 * template renders it, up to where the first user turn's own text begins (found by rendering
 * different user turns after it, so it works for any template). `opening`: the label that opens the
 * reply's turn in a transcript (toChatHistory.ts), which decides how the system text is laid out there.
 * Cached per system text and opening (bounded).
 */
export class StaticPrefixes {
  private readonly cache = new Map<string, StaticPrefix | null>();

  constructor(private readonly maxEntries = 1024) {}

  get(messages: readonly ChatMessage[], tokenize: (history: ChatHistoryItem[]) => Token[], opening?: string): StaticPrefix | null {
    const system = messages[0]?.role === "system" ? messages[0].content : null;
    if (system === null) return null;
    const cacheKey = opening ? `${opening}\u0000${system}` : system;
    let prefix = this.cache.get(cacheKey);
    if (prefix === undefined) {
      const [first, ...others] = PROBES.map((text) => tokenize(toChatHistory([{ role: "system", content: system }, { role: "user", content: text }], opening)));
      const length = Math.min(...others.map((o) => commonPrefixLength(first, o)));
      const tokens = first.slice(0, length);
      prefix = tokens.length ? { key: Bun.hash.xxHash64(new Uint32Array(tokens)).toString(16), tokens } : null;
      this.cache.set(cacheKey, prefix);
      if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    }
    return prefix;
  }
}
