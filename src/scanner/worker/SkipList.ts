import type { Skipped } from "../extract/index.ts";

/**
 * skippedContent of a job: the first `limit` entries listed one by one, the
 * rest counted per reason into summary lines, so an archive of thousands of
 * noisy files cannot grow the job row without bound.
 */
export class SkipList {
  private readonly listed: Skipped[] = [];
  private readonly overflow = new Map<string, number>();
  /** Per-folder/kind summaries (SkipTally): always listed, ahead of the per-section entries. */
  private summaries: Skipped[] = [];

  constructor(private readonly limit: number) {}

  add(s: Skipped): void {
    if (this.listed.length < this.limit) this.listed.push(s);
    else this.overflow.set(s.reason, (this.overflow.get(s.reason) ?? 0) + 1);
  }

  setSummaries(entries: Skipped[]): void {
    this.summaries = entries;
  }

  toJSON(): Skipped[] {
    const summary = [...this.overflow].map(([reason, n]) => ({ section: `${n} more ${n === 1 ? "section" : "sections"}`, reason, sourceFile: "(several files)" }));
    return [...this.summaries, ...this.listed, ...summary];
  }
}
