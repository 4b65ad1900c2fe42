/**
 * Token counts of recent texts. The same system prompt and conversation
 * turns are counted on every request of a conversation (budgets, credit
 * reservations); tokenizing a 1,000-token prompt costs ~1.5 ms with a
 * 150k-token vocabulary, which adds up on the hot path. Bounded LRU.
 */
export class TokenCountCache {
  private readonly map = new Map<string, number>();

  constructor(private readonly maxEntries = 4096) {}

  get(text: string, count: (text: string) => number): number {
    const hit = this.map.get(text);
    if (hit !== undefined) {
      // refresh recency
      this.map.delete(text);
      this.map.set(text, hit);
      return hit;
    }
    const n = count(text);
    this.map.set(text, n);
    if (this.map.size > this.maxEntries) this.map.delete(this.map.keys().next().value!);
    return n;
  }
}
