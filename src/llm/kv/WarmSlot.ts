import type { LlamaContextSequence, Token } from "node-llama-cpp";

/** What the engine keeps per sequence for warm starts. */
export interface WarmSlot {
  sequence: LlamaContextSequence;
  /** The conversation whose KV state the sequence holds (null: none, or a mind prefix only). */
  holds: string | null;
  /** What the last snapshot of `holds` contained (to skip saving an unchanged state). */
  saved: { key: string; tokens: readonly number[] } | null;
  /** The mind's prompt a warm-up stopped in this sequence for a turn, and how much of it is saved (WarmProgress). */
  warming?: { key: string; tokens: readonly Token[]; saved: number };
}
