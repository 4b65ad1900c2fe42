/** The last `size` durations, for p50/p99 in /readyz and /metrics without an unbounded histogram. */
export class LatencyWindow {
  private readonly values: number[] = [];
  private next = 0;

  constructor(private readonly size = 512) {}

  add(ms: number): void {
    if (this.values.length < this.size) this.values.push(ms);
    else this.values[this.next] = ms;
    this.next = (this.next + 1) % this.size;
  }

  quantile(q: number): number | null {
    if (this.values.length === 0) return null;
    const sorted = [...this.values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  }
}
