/**
 * llama-server slots of one backend, pinned to conversations like the local engine's sequences:
 * a returning conversation gets its own slot back (its KV cache is still there) when it is idle;
 * a new one takes the idle slot used least recently. With every slot busy the server chooses (-1).
 */
export class SlotMap {
  private readonly owner: (string | null)[];
  private readonly lastUsed: number[];
  private readonly busy: boolean[];
  private readonly byKey = new Map<string, number>();
  private tick = 0;

  constructor(readonly size: number) {
    this.owner = Array(size).fill(null);
    this.lastUsed = Array(size).fill(0);
    this.busy = Array(size).fill(false);
  }

  acquire(key: string): number {
    const own = this.byKey.get(key);
    if (own !== undefined && !this.busy[own]) return this.take(own, key);
    let best = -1;
    for (let i = 0; i < this.size; i++) {
      if (this.busy[i]) continue;
      if (best < 0 || this.lastUsed[i] < this.lastUsed[best]) best = i;
    }
    return best < 0 ? -1 : this.take(best, key);
  }

  release(slot: number): void {
    if (slot >= 0 && slot < this.size) this.busy[slot] = false;
  }

  private take(slot: number, key: string): number {
    const previous = this.owner[slot];
    if (previous !== null && previous !== key) this.byKey.delete(previous);
    this.owner[slot] = key;
    this.byKey.set(key, slot);
    this.busy[slot] = true;
    this.lastUsed[slot] = ++this.tick;
    return slot;
  }
}
