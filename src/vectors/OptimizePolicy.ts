import type { Generation, Kind } from "./generation.ts";
import { optimizeTable } from "./generation.ts";
import type { Mutex } from "./Mutex.ts";

// Index upkeep. Appends land in new fragments that no index covers yet; LanceDB still
// searches them (a flat scan — verified for scalar filters), so correctness never
// waits for optimize(). optimize() compacts fragments and folds new rows into the
// scalar indexes, but its compaction rewrites the whole table while it is under LanceDB's
// 1M-row fragment target (not configurable from JS): ~1.5 s at 30k rows, ~7 s at 50k. So it
// runs once writes go quiet, and during a long burst only after the table has grown by a
// quarter (at least 2,000 rows): total upkeep stays proportional to the rows written.
const OPTIMIZE_IDLE_MS = 2_000;
const OPTIMIZE_GROWTH = 0.25;
const OPTIMIZE_MIN_ROWS = 2_000;

/** When the vector store compacts and re-indexes its tables (the policy above), per table kind. */
export class OptimizePolicy {
  /** Rows written since the last optimize, and the table size then. */
  private rowsSince: Record<Kind, number> = { chunks: 0, memories: 0 };
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
    const t = this.timer[kind];
    if (t) clearTimeout(t);
    this.timer[kind] = null;
    if (this.rowsSince[kind] >= Math.max(OPTIMIZE_MIN_ROWS, OPTIMIZE_GROWTH * this.rowsAt[kind])) {
      void this.run(kind);
    } else {
      const timer = setTimeout(() => void this.run(kind), OPTIMIZE_IDLE_MS);
      (timer as { unref?: () => void }).unref?.();
      this.timer[kind] = timer;
    }
  }

  run(kind: Kind): Promise<void> {
    this.timer[kind] = null;
    if (this.running[kind]) return this.running[kind]!;
    this.rowsSince[kind] = 0;
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
