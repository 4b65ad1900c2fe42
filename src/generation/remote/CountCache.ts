/** Exact token counts a server reported for recent texts (bounded LRU; a follow-up turn re-counts only its new messages). */
export class CountCache {
  private readonly map = new Map<string, number>();

  constructor(private readonly maxEntries = 4096) {}

  peek(text: string): number | undefined {
    const hit = this.map.get(text);
    if (hit !== undefined) {
      this.map.delete(text);
      this.map.set(text, hit);
    }
    return hit;
  }

  set(text: string, n: number): void {
    this.map.set(text, n);
    if (this.map.size > this.maxEntries) this.map.delete(this.map.keys().next().value!);
  }
}
