import type { KnownPrefixes } from "./KnownPrefixes.ts";
import type { KvCounters } from "./kvCounters.ts";
import type { SaveWriter } from "./SaveWriter.ts";
import type { SnapshotStore } from "./SnapshotStore.ts";
import type { WarmSlot } from "./WarmSlot.ts";

/**
 * Conversations' snapshots: each save holds the sequence only while its state is taken, and is packed and
 * written off it (SaveWriter), against the longest mind prefix snapshot the conversation starts with.
 */
export class ConversationSaves {
  /** Keys erased while a save of theirs may be running: that save is deleted again. */
  private readonly forgotten = new Set<string>();
  /** Saves taken and not yet written, up to their counting. */
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly store: SnapshotStore,
    private readonly counters: KvCounters,
    private readonly known: KnownPrefixes,
    private readonly writer: SaveWriter,
  ) {}

  /** A turn of `key` begins: an erasure before it is behind it. */
  begin(key: string): void {
    this.forgotten.delete(key);
  }

  /**
   * Saves the conversation the sequence holds. Returns once the sequence is free again; the state is then
   * packed and written in the background (`settle` waits for it). Until that is written the slot counts as
   * saved; if it fails, the slot is unsaved again while it still holds those tokens.
   */
  async save(w: WarmSlot, key: string): Promise<void> {
    const tokens = [...w.sequence.contextTokens];
    const t0 = performance.now();
    const taken = await this.writer.save(
      "conversation",
      key,
      tokens,
      async (path) => {
        await w.sequence.saveStateToFile(path);
      },
      () => this.known.baseFor(tokens),
    );
    this.counters.saveHoldMsTotal += performance.now() - t0;
    if (!taken) {
      this.counters.saveFailures++;
      return;
    }
    if (taken.inPlace) this.counters.savesInPlace++;
    const saved = { key, tokens };
    if (w.holds === key) w.saved = saved;
    const after = taken.done.then(
      (meta) => this.written(w, key, saved, meta, t0),
      () => this.written(w, key, saved, null, t0),
    );
    this.writing.add(after);
    void after.finally(() => this.writing.delete(after));
    if (taken.inPlace) await after;
  }

  /** Erasure: matching saves not yet written write nothing; matching conversations in a turn now are deleted once saved. */
  forget(match: (key: string) => boolean, inTurn: readonly string[]): void {
    for (const key of inTurn) this.forgotten.add(key);
    this.writer.cancel((kind, key) => kind === "conversation" && match(key));
  }

  /** Resolves once every save taken so far is written. */
  async settle(): Promise<void> {
    while (this.writing.size) await Promise.allSettled([...this.writing]);
  }

  /** Some save taken is not written yet. */
  get busy(): boolean {
    return this.writing.size > 0;
  }

  private written(w: WarmSlot, key: string, saved: WarmSlot["saved"], meta: { stateBytes: number } | null, t0: number): void {
    if (!meta) {
      this.counters.saveFailures++;
      if (w.saved === saved) w.saved = null;
      return;
    }
    if (this.forgotten.has(key)) {
      this.store.delete("conversation", key);
      return;
    }
    this.counters.saves++;
    this.counters.savedBytes += meta.stateBytes;
    this.counters.saveMsTotal += performance.now() - t0;
  }
}
