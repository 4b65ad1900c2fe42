/**
 * Hands out the context's sequences to conversations.
 *
 * A conversation keeps its sequence (and so its KV cache) while nobody else needs it; a
 * newcomer takes a free sequence, else evicts the least recently used idle one. When every
 * sequence is generating, requests wait in one FIFO queue. One generation per sequence at a time.
 */
export interface PoolSlot<T> {
  readonly index: number;
  readonly value: T;
  /** The conversation whose tokens this sequence's KV cache holds (null: never used). */
  key: string | null;
  busy: boolean;
  lastUsed: number;
}

interface Waiter<T> {
  key: string;
  grant: (slot: PoolSlot<T>) => void;
  fail: (error: unknown) => void;
}

export class SequencePool<T> {
  private readonly slots: PoolSlot<T>[];
  private readonly waiters: Waiter<T>[] = [];
  private clock = 0;

  constructor(values: readonly T[]) {
    this.slots = values.map((value, index) => ({ index, value, key: null, busy: false, lastUsed: 0 }));
  }

  get size(): number {
    return this.slots.length;
  }

  get busyCount(): number {
    return this.slots.filter((s) => s.busy).length;
  }

  get queueDepth(): number {
    return this.waiters.length;
  }

  /** Every sequence (read-only use: background work inspects what each holds). */
  slotsView(): readonly PoolSlot<T>[] {
    return this.slots;
  }

  /** The key each sequence currently caches, by sequence index. */
  keys(): (string | null)[] {
    return this.slots.map((s) => s.key);
  }

  /** Resolves with a sequence reserved for `key`; rejects with the signal's reason if aborted while waiting. */
  acquire(key: string, signal?: AbortSignal): Promise<PoolSlot<T>> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Everyone goes through the queue, so nobody overtakes an earlier request.
    return new Promise<PoolSlot<T>>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
        this.pump(); // a waiter behind this one may now be grantable
      };
      const waiter: Waiter<T> = {
        key,
        grant: (slot) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(slot);
        },
        fail: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  release(slot: PoolSlot<T>): void {
    slot.busy = false;
    slot.lastUsed = ++this.clock;
    this.pump();
  }

  /**
   * Reserves the idle sequence (other than `except`) with the highest score, if it reaches `min`,
   * without handing its cache to anyone: the caller reads from it (copies its KV state) and gives it
   * back with `release`, which also marks it recently used, so a sequence others copy from stays.
   */
  pinBest(score: (slot: PoolSlot<T>) => number, min: number, except: PoolSlot<T>): { slot: PoolSlot<T>; score: number } | null {
    let best: { slot: PoolSlot<T>; score: number } | null = null;
    for (const slot of this.slots) {
      if (slot === except || slot.busy || slot.key === null) continue;
      const s = score(slot);
      if (s >= min && (!best || s > best.score)) best = { slot, score: s };
    }
    if (best) best.slot.busy = true;
    return best;
  }

  /**
   * Reserves this idle sequence for background work (saving its KV state, or evaluating a mind's
   * prompt over it) without changing its owner or recency. False when it is busy or somebody is
   * waiting for a sequence.
   */
  pin(slot: PoolSlot<T>): boolean {
    if (slot.busy || this.waiters.length > 0) return false;
    slot.busy = true;
    return true;
  }

  /** Ends a `pin`: recency unchanged. */
  unpin(slot: PoolSlot<T>): void {
    slot.busy = false;
    this.pump();
  }

  /** The sequence no longer belongs to a conversation; it is the first a newcomer gets. */
  disown(slot: PoolSlot<T>): void {
    slot.key = null;
    slot.lastUsed = 0;
  }

  /** Rejects every waiting request (shutdown). */
  rejectWaiters(error: unknown): void {
    for (const w of this.waiters.splice(0)) w.fail(error);
  }

  private take(slot: PoolSlot<T>, key: string): PoolSlot<T> {
    slot.key = key;
    slot.busy = true;
    slot.lastUsed = ++this.clock;
    return slot;
  }

  /** Grants sequences to waiters in arrival order; a waiter whose own sequence is busy lets later ones pass. */
  private pump(): void {
    for (let i = 0; i < this.waiters.length; i++) {
      const waiter = this.waiters[i];
      const slot = this.pick(waiter.key);
      if (!slot) continue;
      this.waiters.splice(i, 1);
      i--;
      waiter.grant(this.take(slot, waiter.key));
    }
  }

  private pick(key: string): PoolSlot<T> | null {
    const own = this.slots.find((s) => s.key === key);
    if (own) return own.busy ? null : own; // one generation per conversation's sequence at a time
    const unused = this.slots.find((s) => !s.busy && s.key === null);
    if (unused) return unused;
    const idle = this.slots.filter((s) => !s.busy);
    if (idle.length === 0) return null;
    // LRU, preferring a sequence whose conversation is not itself waiting in the queue.
    const wanted = new Set(this.waiters.map((w) => w.key));
    const byAge = (a: PoolSlot<T>, b: PoolSlot<T>) => a.lastUsed - b.lastUsed;
    const spare = idle.filter((s) => !wanted.has(s.key!)).sort(byAge);
    return spare[0] ?? idle.sort(byAge)[0];
  }
}
