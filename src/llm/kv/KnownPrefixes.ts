import type { Token } from "node-llama-cpp";
import { commonPrefixLength } from "../commonPrefix.ts";
import type { SnapshotMeta } from "./snapshotFile.ts";
import type { SnapshotStore } from "./SnapshotStore.ts";

/** Prefix snapshots remembered by their tokens, to find the nearest one when a prompt's own is missing. */
const KNOWN_PREFIXES = 64;

/** The mind prefix snapshots this engine has seen (saved or looked up), by their tokens, most recent last. */
export class KnownPrefixes {
  private readonly known = new Map<string, readonly number[]>();

  constructor(
    private readonly store: SnapshotStore,
    private readonly minGainTokens: number,
  ) {}

  remember(meta: SnapshotMeta): void {
    this.known.delete(meta.key);
    this.known.set(meta.key, meta.tokens);
    if (this.known.size > KNOWN_PREFIXES) this.known.delete(this.known.keys().next().value!);
  }

  /**
   * The mind prefix snapshot a conversation's state is packed against: the longest known one its
   * tokens start with whole (its KV rows are then the same bytes), so only the conversation's own
   * tokens take space on disk.
   */
  async baseFor(tokens: readonly number[]): Promise<SnapshotMeta | null> {
    let best: { key: string; length: number } | null = null;
    for (const [key, prefix] of this.known) {
      if (prefix.length < this.minGainTokens || prefix.length > tokens.length || (best && prefix.length <= best.length)) continue;
      if (commonPrefixLength(prefix, tokens) === prefix.length) best = { key, length: prefix.length };
    }
    return best ? this.store.lookup("prefix", best.key) : null;
  }

  /** The known prefix snapshot sharing the longest start with the prompt, beyond what the sequence holds. */
  async nearest(prompt: readonly Token[], own: number): Promise<SnapshotMeta | null> {
    let best: { key: string; reach: number } | null = null;
    for (const [key, tokens] of this.known) {
      const reach = Math.min(commonPrefixLength(tokens, prompt), prompt.length - 1);
      if (reach - own >= this.minGainTokens && (!best || reach > best.reach)) best = { key, reach };
    }
    if (!best) return null;
    const meta = await this.store.lookup("prefix", best.key);
    if (!meta) this.known.delete(best.key);
    return meta;
  }
}
