import type { SnapshotKind, SnapshotMeta } from "./snapshotFile.ts";
import type { SnapshotStore } from "./SnapshotStore.ts";

/**
 * Taken states a writer holds in memory while they are packed: each is a whole sequence's state (37 MB for a
 * 2,000-token SmolLM2 conversation, ~25 MB for Qwen2.5-0.5B), so two bound the memory to a few states.
 */
export const PENDING_SAVES = 2;

export interface WriterOptions {
  /** Taken states waiting to be packed at most; a save beyond them is done whole while the sequence waits (0: always). */
  pendingSaves?: number;
  /** Runs before each state is packed (tests make a save slow with it). */
  beforePack?: (kind: SnapshotKind, key: string) => Promise<void>;
}

interface Job {
  kind: SnapshotKind;
  key: string;
  cancelled: boolean;
}

/**
 * Saves a sequence's state in two parts: the part that needs the sequence (llama.cpp writes the state, read
 * back into memory: tens of milliseconds) and the part that does not (zstd against the mind's prefix, the files,
 * the meta: seconds for a 37 MB state on a busy box). The sequence is free again after the first part, so a
 * `parallel: 1` server's next turn, or a warm-up, no longer waits for a conversation's compression.
 *
 * Saves of one key are written in the order they were taken (a later state never ends up under an earlier one),
 * and a restore of a key waits for its saves (`settled`). At most `pendingSaves` taken states wait; beyond that a
 * save is written before the sequence is given back, as it always was. A cancelled save (the player erased)
 * writes nothing, or deletes what it wrote.
 */
export class SaveWriter {
  /** The last save of each kind and key (its completion, never rejecting). */
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly jobs = new Set<Job>();
  private pending = 0;
  private readonly maxPending: number;

  constructor(
    private readonly store: SnapshotStore,
    private readonly options: WriterOptions = {},
  ) {
    this.maxPending = Math.max(0, Math.floor(options.pendingSaves ?? PENDING_SAVES));
  }

  /**
   * Takes the state (`write` puts llama.cpp's state at a path: the only step that needs the sequence) and
   * schedules its packing. Resolves once the sequence may be used again: null when nothing was taken (disk
   * full, a failure), else `done`, the snapshot once written (null when it failed or was cancelled).
   * `base` names the prefix snapshot to pack against, asked for off the sequence.
   */
  async save(
    kind: SnapshotKind,
    key: string,
    tokens: readonly number[],
    write: (statePath: string) => Promise<void>,
    base: () => Promise<SnapshotMeta | null>,
  ): Promise<{ done: Promise<SnapshotMeta | null>; inPlace: boolean } | null> {
    const job: Job = { kind, key, cancelled: false };
    this.jobs.add(job);
    const raw = await this.store.take(write);
    if (!raw || job.cancelled) {
      this.jobs.delete(job);
      return null;
    }
    const inPlace = this.pending >= this.maxPending;
    this.pending++;
    const name = `${kind}\0${key}`;
    const done = (this.tails.get(name) ?? Promise.resolve()).then(() => this.write(job, tokens, raw, base));
    const tail = done.catch(() => null);
    this.tails.set(name, tail);
    void tail.then(() => {
      if (this.tails.get(name) === tail) this.tails.delete(name);
    });
    if (inPlace) await tail;
    return { done, inPlace };
  }

  /** Resolves once every save of this key taken so far is written (or failed). */
  settled(kind: SnapshotKind, key: string): Promise<unknown> {
    return this.tails.get(`${kind}\0${key}`) ?? Promise.resolve();
  }

  /** Resolves once every save taken so far is written (shutdown, tests). */
  async settle(): Promise<void> {
    while (this.tails.size) await Promise.allSettled([...this.tails.values()]);
  }

  /** Saves of matching keys not yet written write nothing (those being written delete what they wrote). */
  cancel(match: (kind: SnapshotKind, key: string) => boolean): void {
    for (const job of this.jobs) if (match(job.kind, job.key)) job.cancelled = true;
  }

  get pendingCount(): number {
    return this.pending;
  }

  private async write(job: Job, tokens: readonly number[], raw: Uint8Array, base: () => Promise<SnapshotMeta | null>): Promise<SnapshotMeta | null> {
    try {
      if (job.cancelled) return null;
      await this.options.beforePack?.(job.kind, job.key);
      if (job.cancelled) return null;
      const meta = await this.store.commit(job.kind, job.key, tokens, raw, await base());
      if (meta && job.cancelled) {
        this.store.delete(job.kind, job.key);
        return null;
      }
      return meta;
    } finally {
      this.pending--;
      this.jobs.delete(job);
    }
  }
}
