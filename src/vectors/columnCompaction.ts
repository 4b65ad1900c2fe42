import { BuildTurns } from "./buildTurns.ts";
import type { DocumentBlock } from "./cacheBlocks.ts";
import { OwnVectors, type FullVectors } from "./fullVectors.ts";
import { ColumnsBuilder, sharedShare, type RowColumns } from "./rowColumns.ts";

/** The share of a set of columns' rows that may belong to no live document before the columns are compacted. */
export const COMPACT_DEAD_SHARE = 0.2;
/** Dead rows that start a compaction whatever their share (in columns of 1M rows: ~3 MB of fields and ids). */
export const COMPACT_DEAD_ROWS = 65_536;
/** Rows copied, or documents moved over, between two yields of a compaction (well under a ms each). */
export const COMPACT_SLICE_ROWS = 2_048;

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
 * A document's rows live in the columns of the documents restored or written with it; when it dies its rows stay
 * there (the others' rows do not move) and only its own copy goes (DocumentBlock.detach). Once a set of columns has
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
    const { dims, sliceRows } = this;
    const blocks: DocumentBlock[] = [];
    let seen = 0;
    for (const b of this.events.blocks()) {
      if (sources.has(b.cols)) blocks.push(b);
      if (++seen % (sliceRows * 4) === 0) yield;
    }
    // where each block's rows, codes and own float32 rows go (-1: it has none to move)
    const m = blocks.length;
    const codeAt = new Int32Array(m).fill(-1);
    const fullAt = new Int32Array(m).fill(-1);
    let rows = 0;
    let codeRows = 0;
    let fullRows = 0;
    for (let k = 0; k < m; k++) {
      const b = blocks[k];
      rows += b.n;
      // codes leave a block only for a home (the index, the column copy), never come back: a block without them now has none later
      if (b.codeArr !== null && !b.packed) (codeAt[k] = codeRows), (codeRows += b.n);
      if (b.full?.owned) (fullAt[k] = fullRows), (fullRows += b.n);
    }
    const builder = new ColumnsBuilder(rows, () => null);
    const codes = codeRows > 0 ? new Int8Array(codeRows * dims) : null;
    const full = fullRows > 0 ? new Float32Array(fullRows * dims) : null;
    const starts = new Int32Array(m);
    // what each block's codes and float32 rows were copied from: moved over only if the block still reads them there
    const codeFrom: (Int8Array | null)[] = new Array(m).fill(null);
    const codeFromAt = new Int32Array(m);
    const fullFrom: (FullVectors | null)[] = new Array(m).fill(null);
    const fullFromAt = new Int32Array(m);
    let slice = 0;
    for (let k = 0; k < m; k++) {
      const b = blocks[k];
      starts[k] = builder.at;
      builder.copyRows(b.cols, b.at, b.n);
      if (codes && codeAt[k] >= 0 && b.codeArr !== null) {
        codes.set(b.codeArr.subarray(b.codeAt * dims, (b.codeAt + b.n) * dims), codeAt[k] * dims);
        codeFrom[k] = b.codeArr;
        codeFromAt[k] = b.codeAt;
      }
      if (full && fullAt[k] >= 0 && b.full?.owned) {
        full.set(b.full.slice(b.fullAt, b.n), fullAt[k] * dims);
        fullFrom[k] = b.full;
        fullFromAt[k] = b.fullAt;
      }
      if ((slice += b.n) >= sliceRows) {
        slice = 0;
        yield;
      }
    }
    const cols = builder.finish();
    // dead until its documents move in: a death meanwhile counts against it as against any columns
    cols.deadRows = cols.rows;
    this.building = cols;
    const own = full && new OwnVectors(full, dims);
    yield;
    let delta = 0;
    for (let k = 0; k < m; k++) {
      const b = blocks[k];
      if (!b.dead) {
        // synchronous, per block: its columns, first row, codes and float32 rows move together
        const d = sharedShare(cols, b.n) - sharedShare(b.cols, b.n);
        b.bytes += d;
        delta += d;
        b.cols = cols;
        b.at = starts[k];
        cols.deadRows -= b.n;
        if (codeFrom[k] !== null && b.codeArr === codeFrom[k] && b.codeAt === codeFromAt[k]) {
          b.codeArr = codes;
          b.codeAt = codeAt[k];
        }
        if (fullFrom[k] !== null && b.full === fullFrom[k] && b.fullAt === fullFromAt[k]) {
          b.full = own;
          b.fullAt = fullAt[k];
        }
      }
      if ((slice += b.n) >= sliceRows) {
        slice = 0;
        this.events.bytes(delta);
        delta = 0;
        yield;
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
    codeFrom.fill(null);
    fullFrom.fill(null);
    sources.clear();
    if (cols.deadRows < cols.rows && this.pastMark(cols)) this.due.add(cols);
  }
}
