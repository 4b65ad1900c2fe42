import { BuildTurns } from "./buildTurns.ts";
import type { DocumentBlock } from "./cacheBlocks.ts";
import { OwnVectors, type FullVectors } from "./fullVectors.ts";
import { ColumnsBuilder, sharedShare, type RowColumns } from "./rowColumns.ts";

/** The share of a set of columns' rows that may belong to no live document before the columns are compacted. */
export const COMPACT_DEAD_SHARE = 0.2;
/** Dead rows that start a compaction whatever their share (in columns of 1M rows: ~3 MB of fields and ids). */
export const COMPACT_DEAD_ROWS = 65_536;
/** Rows copied between two yields of a compaction (~1 ms of CPU at 100,000 rows: bench/column-compaction.ts); 4× as many moved over. */
export const COMPACT_SLICE_ROWS = 1_024;

/** What a compaction asks of its cache. */
export interface CompactionEvents {
  /** the live blocks now, in the cache's order (iterated across yields: a Map's iterator sees later changes) */
  blocks(): Iterable<DocumentBlock>;
  /** the budget's estimate of the live blocks changed by `delta` bytes (their share of what their columns share) */
  bytes(delta: number): void;
  mayStart(): boolean;
  succeeded(): void;
  failed(error: unknown): void;
}

/**
 * Takes the rows of deleted and replaced documents out of the columns the cache's documents share (rowColumns.ts).
 * A document's rows live in the columns of the documents restored or written with it; when it dies it takes a copy
 * of its rows with it (DocumentBlock.detach) and they count as dead there (the others' rows do not move). Once a set of columns has
 * COMPACT_DEAD_SHARE of its rows dead (or COMPACT_DEAD_ROWS), its live documents' rows are copied into new columns,
 * with their codes and their own float32 rows when they still hold them in arrays they share, and each document is
 * moved over; the old columns go with the last document that held them.
 *
 * In the background, in slices (BuildTurns: a timer's turn, or a few ms after a search), and never a pause of the
 * whole copy: every step is a slice of rows. Why readers stay right throughout: a document's rows hold the same
 * values in both sets of columns, its columns and first row change together in one synchronous step, and no reader
 * keeps a row's position across a yield (the index's lists, the column copy, a save and a search's hits name a row
 * by its document and its number within it, which a compaction never changes). So a document moved and one not yet
 * moved answer alike, and a save written meanwhile, or after, writes the same rows. A document that dies during a
 * compaction is simply not moved (its rows in the new columns count as dead there).
 */
export class ColumnCompaction {
  private readonly turns = new BuildTurns();
  /** columns past the mark, waiting for the next run */
  private readonly due = new Set<RowColumns>();
  private running: Promise<void> | null = null;
  /** the columns a run is moving documents to (their dead count is not a reason to compact them until it ends) */
  private building: RowColumns | null = null;
  private stopped = false;
  /** compactions completed (tests and benches count them) */
  done = 0;

  constructor(
    private readonly dims: number,
    private readonly events: CompactionEvents,
    private readonly sliceRows = COMPACT_SLICE_ROWS,
  ) {}

  /** A block died (before it detaches from its columns): its rows are dead there; columns past the mark are compacted. */
  died(block: DocumentBlock): void {
    const cols = block.cols;
    cols.deadRows += block.n;
    if (cols === this.building) return;
    // no live row left: the columns go with their last blocks, nothing to copy
    if (cols.deadRows >= cols.rows) this.due.delete(cols);
    else if (this.pastMark(cols)) {
      this.due.add(cols);
      this.start();
    }
  }

  /** A search answered: a running compaction gets a few ms after it (buildTurns.ts says why). */
  nudge(): void {
    this.turns.nudge();
  }

  /** Resolves when no compaction runs. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  stop(): void {
    this.stopped = true;
  }

  private pastMark(cols: RowColumns): boolean {
    return cols.deadRows >= COMPACT_DEAD_SHARE * cols.rows || cols.deadRows >= COMPACT_DEAD_ROWS;
  }

  private start(): void {
    if (this.running || this.stopped || this.due.size === 0 || !this.events.mayStart()) return;
    const sources = new Set(this.due);
    this.due.clear();
    this.running = this.turns
      .drive(this.steps(sources), () => this.stopped)
      .then(() => {
        this.done++;
        this.events.succeeded();
      })
      .catch((e) => {
        if (this.stopped) return;
        // the documents moved stay moved (their rows are right in either); the rest are tried again after a wait
        for (const s of sources) if (s.deadRows < s.rows) this.due.add(s);
        this.events.failed(e);
      })
      .finally(() => {
        this.building = null;
        this.running = null;
        this.start();
      });
  }

  /** A run: the sources' live blocks found, their rows copied to new columns, then each block moved over. */
  private *steps(sources: Set<RowColumns>): Generator<void, void> {
    const { sliceRows } = this;
    const blocks: DocumentBlock[] = [];
    let seen = 0;
    for (const b of this.events.blocks()) {
      if (sources.has(b.cols)) blocks.push(b);
      if (++seen % (sliceRows * 4) === 0) yield;
    }
    const m = blocks.length;
    let rows = 0;
    for (const b of blocks) rows += b.n;
    const builder = new ColumnsBuilder(rows, () => null);
    const slices: Moves[] = [];
    yield;
    let placed = 0;
    // the first slices small, doubling: the copy's code runs slowly until the engine has compiled it (the first
    // slice of 1,024 rows was a run's longest step, 11 ms of CPU at 100,000 rows, against ~1.2 ms for the others)
    for (let k0 = 0, size = Math.min(64, sliceRows); k0 < m; size = Math.min(sliceRows, size * 2)) {
      // a slice: whole blocks up to `size` rows
      let k1 = k0;
      for (let n = 0; k1 < m && n < size; k1++) n += blocks[k1].n;
      const to = this.copySlice(blocks, k0, k1, placed, builder);
      slices.push(to);
      placed = to.placed;
      k0 = k1;
      yield;
    }
    const cols = builder.finish();
    // dead until its documents move in: a death meanwhile counts against it as against any columns
    cols.deadRows = cols.rows;
    this.building = cols;
    yield;
    let delta = 0;
    let slice = 0;
    for (const to of slices) {
      for (let i = 0; i < to.starts.length; i++) {
        const b = blocks[to.k0 + i];
        if (!b.dead) {
          // synchronous, per block: its columns, first row, codes and float32 rows move together
          const d = sharedShare(cols, b.n) - sharedShare(b.cols, b.n);
          b.bytes += d;
          delta += d;
          b.cols = cols;
          b.at = to.starts[i];
          cols.deadRows -= b.n;
          const codes = to.codes.target(i, b.codeArr, b.codeAt);
          if (codes) {
            b.codeArr = codes;
            b.codeAt = to.codes.at[i];
          }
          const full = to.full.target(i, b.full, b.fullAt);
          if (full) {
            b.full = full;
            b.fullAt = to.full.at[i];
          }
        }
        if ((slice += b.n) >= sliceRows * 4) {
          slice = 0;
          this.events.bytes(delta);
          delta = 0;
          yield;
        }
      }
    }
    this.events.bytes(delta);
    // no live block reads the sources now: whatever dies there later is not a reason to compact them again
    for (const s of sources) {
      s.deadRows = s.rows;
      this.due.delete(s);
    }
    this.building = null;
    // let go of the blocks and arrays the run listed: something still holding the finished run (its generator, a
    // stale pointer the collector finds on the stack) kept the old columns, codes and the dead blocks alive
    blocks.length = 0;
    for (const to of slices) to.clear();
    slices.length = 0;
    sources.clear();
    if (cols.deadRows < cols.rows && this.pastMark(cols)) this.due.add(cols);
  }

  /**
   * Blocks k0 … k1: their rows appended to the builder, their codes and own float32 rows (where they still hold them)
   * copied into arrays of the slice's own. Why per slice: one array for all the rows allocated 33 MB at once at
   * 85,000 rows, and the collection it set off paused that step (measured); a block reads its codes from any array.
   * Blocks lying one after another in the same columns, codes or float32 rows are copied as one run. Returns where
   * each block went (and the rows placed so far).
   */
  private copySlice(blocks: DocumentBlock[], k0: number, k1: number, placed: number, builder: ColumnsBuilder): Moves {
    const { dims } = this;
    const to = new Moves(k0, k1 - k0);
    let codeRows = 0;
    let fullRows = 0;
    for (let k = k0; k < k1; k++) {
      const b = blocks[k];
      if (b.codeArr !== null && !b.packed) codeRows += b.n;
      if (b.full?.owned) fullRows += b.n;
    }
    const codes = codeRows > 0 ? new Int8Array(codeRows * dims) : null;
    const full = fullRows > 0 ? new Float32Array(fullRows * dims) : null;
    const own = full && new OwnVectors(full, dims);
    const rowRun = new Run<RowColumns>((src, at, _, n) => builder.copyRows(src, at, n));
    const codeRun = new Run<Int8Array>((src, at, into, n) => codes!.set(src.subarray(at * dims, (at + n) * dims), into * dims));
    const fullRun = new Run<FullVectors>((src, at, into, n) => full!.set(src.slice(at, n), into * dims));
    let c = 0;
    let f = 0;
    for (let k = k0; k < k1; k++) {
      const b = blocks[k];
      const i = k - k0;
      to.starts[i] = placed;
      rowRun.add(b.cols, b.at, placed, b.n);
      placed += b.n;
      if (codes !== null && b.codeArr !== null && !b.packed) {
        to.codes.set(i, codes, c, b.codeArr, b.codeAt);
        codeRun.add(b.codeArr, b.codeAt, c, b.n);
        c += b.n;
      }
      if (own !== null && b.full?.owned) {
        to.full.set(i, own, f, b.full, b.fullAt);
        fullRun.add(b.full, b.fullAt, f, b.n);
        f += b.n;
      }
    }
    rowRun.end();
    codeRun.end();
    fullRun.end();
    builder.seal();
    to.placed = placed;
    return to;
  }
}

/**
 * Per block of a slice (blocks k0 … k0 + n of the run): where its rows go, and where its codes and own float32 rows
 * went and came from. Per slice, not per run: arrays of every block of the run, allocated in one step, set off a
 * collection there (up to ~10 ms of CPU at 85,000 blocks, measured).
 */
class Moves {
  /** the rows placed once the slice is copied */
  placed = 0;
  readonly starts: Int32Array;
  readonly codes: Moved<Int8Array>;
  readonly full: Moved<FullVectors>;

  constructor(
    readonly k0: number,
    m: number,
  ) {
    this.starts = new Int32Array(m);
    this.codes = new Moved(m);
    this.full = new Moved(m);
  }

  clear(): void {
    this.codes.clear();
    this.full.clear();
  }
}

/** Where a slice's blocks' codes (or own float32 rows) went and came from: arrays as numbers in a short list. */
class Moved<T> {
  /** per block: the array they went to (-1: none) and their first row there; the array they came from and the row */
  private readonly to: Int32Array;
  readonly at: Int32Array;
  private readonly from: Int32Array;
  private readonly fromAt: Int32Array;
  private readonly arrays: T[] = [];
  private readonly numbers = new Map<T, number>();

  constructor(m: number) {
    this.to = new Int32Array(m).fill(-1);
    this.at = new Int32Array(m);
    this.from = new Int32Array(m);
    this.fromAt = new Int32Array(m);
  }

  set(i: number, into: T, at: number, from: T, fromAt: number): void {
    this.to[i] = this.number(into);
    this.at[i] = at;
    this.from[i] = this.number(from);
    this.fromAt[i] = fromAt;
  }

  /**
   * Where block i's now are, when it still reads them where they were copied from; null when it had none to move, or
   * they moved elsewhere since (to the index, the column copy, a snapshot file), where they stay.
   */
  target(i: number, now: T | null, nowAt: number): T | null {
    if (this.to[i] < 0 || now !== this.arrays[this.from[i]] || nowAt !== this.fromAt[i]) return null;
    return this.arrays[this.to[i]];
  }

  clear(): void {
    this.arrays.length = 0;
    this.numbers.clear();
  }

  private number(x: T): number {
    let k = this.numbers.get(x);
    if (k === undefined) {
      k = this.arrays.length;
      this.arrays.push(x);
      this.numbers.set(x, k);
    }
    return k;
  }
}

/**
 * Rows copied a run at a time: rows `at` … `at + n` of one source, going to `into` … here. Blocks lying one after
 * another in their source and here extend the run (a restored file's blocks mostly do; a block at a time cost a few
 * allocations each); `copy` copies a run once the next block does not continue it, or at `end`.
 */
class Run<T> {
  private src: T | null = null;
  private at = 0;
  private into = 0;
  private n = 0;

  constructor(private readonly copy: (src: T, at: number, into: number, n: number) => void) {}

  add(src: T, at: number, into: number, n: number): void {
    if (this.src === src && this.at + this.n === at && this.into + this.n === into) {
      this.n += n;
      return;
    }
    this.end();
    [this.src, this.at, this.into, this.n] = [src, at, into, n];
  }

  end(): void {
    if (this.src !== null) this.copy(this.src, this.at, this.into, this.n);
    this.src = null;
  }
}
