import { edenGC } from "bun:jsc";

/**
 * Collections after every `every` units of work (bytes read, characters of candidate text
 * handled). A scan makes garbage far faster than the runtime's own collector returns memory: its
 * heap grows to several times what is live, and the allocator keeps those pages after collection,
 * so the peak RSS is set by how much garbage piles up between collections (bench/scanner.ts).
 * Counting work rather than files also collects inside one big file (an 8 MB dialogue database
 * yields 15,000 candidates). Collections may alternate with ones of young objects only (JSC's
 * eden collection): on the extraction thread, the scan's bottleneck, a full one each time cost a
 * fifth of the real corpus's speed, eden ones alone let the 200 MB archive's peak climb ~90 MB.
 * Collections are skipped while the process's RSS is below `aboveRss` (a scan's start plus some
 * headroom, RSS_HEADROOM): a small project never needs one (they were ~10 % of a scan's CPU).
 */
export class GarbageBudget {
  private since = 0;
  private collections = 0;

  /**
   * `fullEvery`: one collection in that many is of the whole heap, the others of young objects only.
   * `aboveRss`: bytes of the process's RSS under which no collection is forced (0: always collect).
   */
  constructor(
    private readonly every: number,
    private readonly fullEvery = 1,
    private readonly aboveRss = 0,
  ) {}

  spend(units: number): void {
    this.since += units;
    if (this.since < this.every) return;
    this.since = 0;
    if (this.aboveRss > 0 && process.memoryUsage.rss() < this.aboveRss) return;
    if (++this.collections % this.fullEvery !== 0) edenGC();
    else Bun.gc(true);
  }
}

/**
 * How far a scan's RSS may rise over its start before collections are forced. The 200 MB archive
 * passes it within seconds and is collected as before (its peak is what the collections hold down);
 * the real-project corpora of 1–37 MB mostly stay under it.
 */
export const RSS_HEADROOM = 32 * 1024 * 1024;

/** Characters of candidate text in a batch: the garbage a batch leaves behind is about proportional. */
export function textChars(batch: readonly { text: string }[]): number {
  let n = 0;
  for (const c of batch) n += c.text.length;
  return n;
}
