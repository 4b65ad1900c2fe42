import type { LlamaContextSequence, Token } from "node-llama-cpp";
import { commonPrefixLength } from "../commonPrefix.ts";
import type { SnapshotMeta } from "./snapshotFile.ts";
import type { SnapshotStore } from "./SnapshotStore.ts";
import type { SaveWriter } from "./SaveWriter.ts";

/** Loads a snapshot into a sequence; false (the sequence cleared, a broken file deleted) when it did not load whole. */
export async function restoreSnapshot(store: SnapshotStore, seq: LlamaContextSequence, meta: SnapshotMeta): Promise<boolean> {
  let loaded = false;
  try {
    loaded = await store.load(meta, (path) => seq.loadStateFromFile(path, { acceptRisk: true }));
  } catch {
    store.delete(meta.kind, meta.key);
  }
  const tokens = seq.contextTokens;
  if (loaded && tokens.length === meta.tokens.length && commonPrefixLength(tokens, meta.tokens) === tokens.length) return true;
  // A half-done load leaves the sequence's token list out of step with its cache: start clean.
  await seq.clearHistory().catch(() => {});
  return false;
}

/** The snapshot key of a mind prompt's warmed part: the prompt's own key is kept for the whole prompt. */
export const partKey = (key: string): string => `${key}\0part`;

/**
 * What a mind's warm-up had evaluated when a turn took its sequence, saved as a snapshot of its own. On a
 * server whose sequences never stay idle as long as a whole prompt takes (one sequence, turns a moment apart),
 * each idle moment's work was thrown away by the next turn of another mind, so the prompt was never saved and
 * its mind's first player always paid all of it. With the part kept, the next idle moment goes on from it
 * (restored when the sequence no longer holds it), and a newcomer of that mind meanwhile starts from it. The
 * part is deleted once the whole prompt is saved.
 */
export class WarmProgress {
  constructor(
    private readonly store: SnapshotStore,
    private readonly minGainTokens: number,
    private readonly writer: SaveWriter,
  ) {}

  /** The saved part of this prompt, if any; one that no longer starts the prompt is deleted. */
  async find(key: string, tokens: readonly Token[]): Promise<SnapshotMeta | null> {
    await this.writer.settled("prefix", partKey(key));
    const meta = await this.store.lookup("prefix", partKey(key));
    if (!meta) return null;
    if (meta.tokens.length < tokens.length && commonPrefixLength(meta.tokens, tokens) === meta.tokens.length) return meta;
    this.drop(key);
    return null;
  }

  /**
   * Saves the part of the prompt the sequence holds, when it is worth more than the part saved before
   * (`saved` tokens) by at least what a restore must gain: the turn waiting for the sequence waits for the
   * state to be taken, not for its packing (SaveWriter). Returns the tokens the saved part holds once written.
   */
  async keep(key: string, tokens: readonly Token[], seq: LlamaContextSequence, saved: number): Promise<number> {
    const held = commonPrefixLength(seq.contextTokens, tokens);
    if (held !== seq.contextTokens.length || held < saved + this.minGainTokens || !this.store.writable) return saved;
    const write = async (path: string) => {
      await seq.saveStateToFile(path);
    };
    const taken = await this.writer.save("prefix", partKey(key), [...seq.contextTokens], write, async () => null);
    return taken ? held : saved;
  }

  drop(key: string): void {
    this.store.delete("prefix", partKey(key));
  }
}
