/**
 * The hit times (ms) of one key, oldest first: an exact sliding log, so the
 * wait until a slot frees is known to the millisecond. Removal from the front
 * is by a head index, compacted now and then, to keep expiry O(expired).
 */
export class SlidingLog {
  private times: number[] = [];
  private head = 0;

  get size(): number {
    return this.times.length - this.head;
  }

  /** Drops hits at or before `cutoff` (= now − window: a hit at t counts while now < t + window). */
  expire(cutoff: number): void {
    while (this.head < this.times.length && this.times[this.head] <= cutoff) this.head++;
    if (this.head === this.times.length) {
      this.times = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  /** Records a hit, keeping order even if the clock stepped back. */
  add(t: number): void {
    let i = this.times.length;
    while (i > this.head && this.times[i - 1] > t) i--;
    this.times.splice(i, 0, t);
  }

  /** Forgets one hit at `t` (the newest when t is omitted); false when there is none. */
  remove(t?: number): boolean {
    if (this.size === 0) return false;
    if (t === undefined) {
      this.times.pop();
      return true;
    }
    for (let i = this.times.length - 1; i >= this.head; i--) {
      if (this.times[i] === t) {
        this.times.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  /**
   * Milliseconds until one more hit fits under `limit` (0 = fits now). With
   * n ≥ limit live hits, the (n − limit + 1)-th oldest must expire first.
   */
  waitMs(now: number, limit: number, windowMs: number): number {
    const n = this.size;
    if (n < limit) return 0;
    return Math.max(0, this.times[this.head + n - limit] + windowMs - now);
  }
}
