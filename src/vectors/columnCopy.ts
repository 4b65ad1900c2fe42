import type { DocumentBlock, PreparedQuery, TopN } from "./cacheBlocks.ts";
import { ColumnScan } from "./columnScan.ts";

/**
 * A project's column copy (columnScan.ts) and its background builds. A sparse search past the threshold asks
 * for one (`want`) and scans it when it is ready; until then, and while a rebuild runs, the search scans the rows
 * (or the previous copy, still exact: documents written since it was built are scanned beside it). So no request
 * pays the copy (~120 ms at 100,000 rows), and a copy is never used before its last slice is in place.
 *
 * Kept in step with writes like the index: a build copies the live blocks of one moment; blocks placed while it
 * runs are listed as its `added` when it swaps in, and rows of the moment's blocks deleted meanwhile count as
 * dead (their blocks are marked dead, which the scan skips).
 */
export class ColumnCopy {
  private current: ColumnScan | null = null;
  private building: Promise<void> | null = null;
  /** while a build runs: blocks placed since its moment */
  private pending: Set<DocumentBlock> | null = null;
  private stopped = false;

  constructor(
    private readonly dims: number,
    private readonly sliceRows?: number,
  ) {}

  /** Memory of the ready copy (counted in the cache's bytes; a build's half-made copy is not yet). */
  get bytes(): number {
    return this.current?.bytes ?? 0;
  }

  get state(): "none" | "building" | "ready" {
    if (this.current) return "ready";
    return this.building ? "building" : "none";
  }

  /** Resolves when no build runs. */
  async idle(): Promise<void> {
    while (this.building) await this.building;
  }

  stop(): void {
    this.stopped = true;
  }

  placed(block: DocumentBlock): void {
    this.current?.added.add(block);
    this.pending?.add(block);
  }

  deleted(block: DocumentBlock): void {
    this.pending?.delete(block);
    const c = this.current;
    if (c && !c.added.delete(block)) c.deadRows += block.ids.length;
  }

  /** Starts a build when there is no copy or it has gone stale, unless one runs; `blocks` is read at its start. */
  want(blocks: () => DocumentBlock[]): void {
    if (this.building || this.stopped || (this.current && !this.current.stale)) return;
    const pending = new Set<DocumentBlock>();
    const run = async () => {
      await Bun.sleep(0); // after the search that asked: it answers first
      if (this.stopped) return;
      const snapshot = blocks();
      this.pending = pending;
      let rows = 0;
      for (const b of snapshot) rows += b.scales.length;
      const pause = async () => {
        await Bun.sleep(0);
        if (this.stopped) throw new Error("cache evicted");
      };
      const copy = await ColumnScan.build(snapshot, rows, this.dims, pause, this.sliceRows);
      // synchronous from here: no write slips between catching up and swapping in
      for (const b of pending) if (!b.dead) copy.added.add(b);
      for (const b of snapshot) if (b.dead) copy.deadRows += b.scales.length;
      this.current = copy;
    };
    this.building = run()
      .catch(() => {}) // an abandoned build leaves the previous copy (or the row scan) answering
      .finally(() => {
        this.pending = null;
        this.building = null;
      });
  }

  /** Scans with the ready copy (true), or does nothing when there is none (false: the caller scans the rows). */
  scan(p: PreparedQuery, best: TopN, scoreRow: (doc: DocumentBlock, r: number) => number): boolean {
    if (!this.current) return false;
    this.current.scan(p, best, scoreRow);
    return true;
  }
}
