import { rowCount, type DocumentBlock, type PreparedQuery, type TopN } from "./cacheBlocks.ts";
import { COLUMN_SLICE_ROWS, ColumnScan } from "./columnScan.ts";

/**
 * A project's column copy (columnScan.ts) and its builds. A sparse search past the threshold asks for one (`want`)
 * and scans it when it is ready; until then, and while a rebuild runs, the search scans the rows (or the previous
 * copy, still exact: documents written since it was built are scanned beside it). So no request pays the whole
 * copy (~120 ms at 100,000 rows), and a copy is never used before its last slice is in place.
 *
 * The copy is made a slice at a time, each slice a `setImmediate` callback: in the background whenever the event
 * loop turns. A stream of requests that never lets it turn (in-process calls whose awaits all resolve as
 * microtasks or native completions, measured: no immediate nor timer ran in 3 s of back-to-back previews) would
 * starve it, so each search that finds the copy unfinished also copies one slice after it has its answer: the
 * copy is done after ~50 such searches at 100,000 rows, each paying one slice (~2.5 ms) at most.
 *
 * Kept in step with writes like the index: a build copies the live blocks of one moment; blocks placed while it
 * runs are listed as its `added` when it swaps in, and rows of the moment's blocks deleted meanwhile count as
 * dead (their blocks are marked dead, which the scan skips).
 */
export class ColumnCopy {
  private current: ColumnScan | null = null;
  private build: Build | null = null;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly dims: number,
    private readonly sliceRows = COLUMN_SLICE_ROWS,
    private readonly events: ColumnCopyEvents = {},
  ) {}

  /** Memory of the ready copy (counted in the cache's bytes; a build's half-made copy is not yet). */
  get bytes(): number {
    return this.current?.bytes ?? 0;
  }

  get state(): "none" | "building" | "ready" {
    if (this.current) return "ready";
    return this.build ? "building" : "none";
  }

  /** Resolves when no build runs. */
  idle(): Promise<void> {
    if (!this.build) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  stop(): void {
    this.stopped = true;
    this.end();
  }

  placed(block: DocumentBlock): void {
    this.current?.added.add(block);
    this.build?.pending.add(block);
  }

  deleted(block: DocumentBlock): void {
    this.build?.pending.delete(block);
    const c = this.current;
    if (c && !c.added.delete(block)) c.deadRows += rowCount(block);
  }

  /** Starts a build when there is no copy or it has gone stale, unless one runs; `blocks` are the live blocks now. */
  want(blocks: () => DocumentBlock[]): void {
    if (this.build || this.stopped || (this.current && !this.current.stale)) return;
    const docs = blocks();
    let rows = 0;
    for (const b of docs) rows += b.n;
    this.build = { docs, copy: ColumnScan.empty(rows, this.dims), at: { doc: 0, row: 0 }, pending: new Set() };
    this.schedule();
  }

  /** Scans with the ready copy (true), or returns false (the caller scans the rows) after advancing a build. */
  scan(p: PreparedQuery, best: TopN, scoreRow: (doc: DocumentBlock, r: number) => number): boolean {
    if (this.current) {
      this.current.scan(p, best, scoreRow);
      // a rebuild under way: this search's slice of it (the old copy answered)
      if (this.build) queueMicrotask(() => this.step());
      return true;
    }
    // after the caller's row scan (the answer first), in the same turn of the event loop
    if (this.build) queueMicrotask(() => this.step());
    return false;
  }

  /**
   * Copies one slice of the running build; swaps it in once complete. It runs in an immediate or a microtask, outside
   * any request: a slice that throws drops the build and is reported, never left to end the process.
   */
  private step(): void {
    const b = this.build;
    if (!b || this.stopped) return;
    try {
      if (!b.copy.copy(b.docs, b.at, this.sliceRows)) return;
      // complete, and synchronous from here: no write slips between catching up and swapping in
      for (const d of b.pending) if (!d.dead) b.copy.added.add(d);
      for (const d of b.docs) if (d.dead) b.copy.deadRows += d.n;
      this.current = b.copy;
      this.adopt(b);
      this.end();
      this.events.built?.();
    } catch (e) {
      if (this.build === b) this.end();
      this.events.failed?.(e);
    }
  }

  /**
   * The copied blocks' codes now live in the copy alone: one code a row, not two (the int8 rows were 384 B a chunk
   * beside the copy's 229 B). Their rows are scored from the copy wherever a row is still scored one at a time (a
   * dense query, the rows written since, a snapshot's save), and a later copy copies them from this one.
   */
  private adopt(b: Build): void {
    let at = 0;
    let bytes = 0;
    for (const d of b.docs) {
      const start = at;
      at += rowCount(d);
      // a row the approximate index holds in int8 stays read from there: a block reads its rows at full int8, not
      // from the copy's 4-bit codes, and the index keeps it in its lists at its next compaction
      if (!d.ownCodes && d.homeCopy && !(d.homeCopy instanceof ColumnScan)) continue;
      const freed = d.moveCodes(b.copy, start);
      if (!d.dead) bytes += freed; // a dead block's bytes left the cache's count when it died
    }
    if (bytes) this.events.freed?.(bytes);
  }

  private schedule(): void {
    setImmediate(() => {
      if (!this.build || this.stopped) return;
      this.step();
      if (this.build) this.schedule();
    });
  }

  private end(): void {
    this.build = null;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

export interface ColumnCopyEvents {
  /** the bytes of live blocks' int8 codes dropped once a copy holds their rows */
  freed?: (bytes: number) => void;
  /** a build swapped its copy in */
  built?: () => void;
  /** a slice threw: the build was dropped first (the rows, or the copy before, answer as they did) */
  failed?: (error: unknown) => void;
}

interface Build {
  docs: DocumentBlock[];
  copy: ColumnScan;
  /** the next document to copy, and the row it starts at */
  at: { doc: number; row: number };
  /** blocks placed since the build's moment */
  pending: Set<DocumentBlock>;
}
