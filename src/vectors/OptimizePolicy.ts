import type { Generation, Kind } from "./generation.ts";
import { optimizeTable } from "./generation.ts";
import type { Mutex } from "./Mutex.ts";

// Index upkeep. Appends land in new fragments that no index covers yet; LanceDB still
// searches them (a flat scan — verified for scalar filters), so correctness never
// waits for optimize(). optimize() compacts fragments and folds new rows into the
// scalar indexes, but its compaction rewrites the whole table while it is under LanceDB's
// 1M-row fragment target (not configurable from JS): ~1.5 s at 30k rows, ~7 s at 50k. So it
// runs during a long burst only after the table has grown by a quarter (at least 2,000 rows), and once writes go
// quiet only if it is worth its cost: the table is small, or it grew by a sixteenth, or 64 commits (fragments)
// piled up. Without that bound a big table was rewritten after every pause of 2 s: an indexer whose batch takes
// longer than that (MiniLM, a loaded box) compacted a 100,000-chunk table after every 256 chunks, and a game's
// occasional memory writes rewrote the whole memories table each time (BENCHMARKS.md "Big worlds: a million
// chunks"). Total upkeep stays proportional to the rows written; rows not yet compacted are still searched.
const OPTIMIZE_IDLE_MS = 2_000;
const OPTIMIZE_GROWTH = 0.25;
const OPTIMIZE_MIN_ROWS = 2_000;
const IDLE_GROWTH = 1 / 16;
const IDLE_MAX_COMMITS = 64;
/** Below this, a compaction takes about a second: a pause always earns one. */
const IDLE_SMALL_TABLE_ROWS = 20_000;

/** Whether the writes since the last optimize call for one now (`idle`: writes paused) or not yet. */
export function optimizeDue(rowsSince: number, commitsSince: number, rowsAt: number, idle: boolean): boolean {
  if (rowsSince >= Math.max(OPTIMIZE_MIN_ROWS, OPTIMIZE_GROWTH * rowsAt)) return true;
  if (!idle || commitsSince === 0) return false;
  return rowsAt < IDLE_SMALL_TABLE_ROWS || rowsSince >= IDLE_GROWTH * rowsAt || commitsSince >= IDLE_MAX_COMMITS;
}

/** When the vector store compacts and re-indexes its tables (the policy above), per table kind. */
export class OptimizePolicy {
  /** Rows written since the last optimize, and the table size then. */
  private rowsSince: Record<Kind, number> = { chunks: 0, memories: 0 };
  private commitsSince: Record<Kind, number> = { chunks: 0, memories: 0 };
  private rowsAt: Record<Kind, number> = { chunks: 0, memories: 0 };
  private timer: Record<Kind, ReturnType<typeof setTimeout> | null> = { chunks: null, memories: null };
  private running: Record<Kind, Promise<void> | null> = { chunks: null, memories: null };

  constructor(
    private readonly store: {
      locks: Record<Kind, Mutex>;
      writeTargets(): Generation[];
      activeGeneration(): Generation;
      /** closing: no new optimize is scheduled; closed: a queued one does nothing */
      readonly closing: boolean;
      readonly closed: boolean;
    },
  ) {}

  /** The table sizes now (after open, or a re-embed's swap). */
  async measure(g: Generation): Promise<void> {
    this.rowsAt = { chunks: await g.chunks.countRows(), memories: await g.memories.countRows() };
  }

  noteCommit(kind: Kind, rows = 1): void {
    if (this.store.closing) return;
    this.rowsSince[kind] += rows;
    this.commitsSince[kind]++;
    const t = this.timer[kind];
    if (t) clearTimeout(t);
    this.timer[kind] = null;
    if (optimizeDue(this.rowsSince[kind], this.commitsSince[kind], this.rowsAt[kind], false)) {
      void this.run(kind);
    } else if (optimizeDue(this.rowsSince[kind], this.commitsSince[kind], this.rowsAt[kind], true)) {
      const timer = setTimeout(() => void this.run(kind), OPTIMIZE_IDLE_MS);
      (timer as { unref?: () => void }).unref?.();
      this.timer[kind] = timer;
    }
  }

  run(kind: Kind): Promise<void> {
    this.timer[kind] = null;
    if (this.running[kind]) return this.running[kind]!;
    this.rowsSince[kind] = 0;
    this.commitsSince[kind] = 0;
    const p = this.store.locks[kind]
      .run(async () => {
        if (this.store.closed) return;
        for (const g of this.store.writeTargets()) await optimizeTable(g[kind]);
        this.rowsAt[kind] = await this.store.activeGeneration()[kind].countRows();
      })
      .catch((e) => console.error(`lorehold: optimizing the ${kind} vector table failed:`, e))
      .finally(() => {
        this.running[kind] = null;
      });
    this.running[kind] = p;
    return p;
  }

  clearTimers(): void {
    for (const kind of ["chunks", "memories"] as const) {
      const t = this.timer[kind];
      if (t) clearTimeout(t);
      this.timer[kind] = null;
    }
  }

  /** Resolves once no optimize is running. */
  async idle(): Promise<void> {
    await Promise.all([this.running.chunks, this.running.memories]);
  }
}
