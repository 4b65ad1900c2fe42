import { MemoryGroups } from "./memoryGroups.ts";
import type { MemoryRow } from "./rows.ts";

/** How long appended rows wait for others before their commit (config memoryAppendWindowMs). */
export const DEFAULT_APPEND_WINDOW_MS = 100;
/** Rows that commit at once without waiting for the window's end (config memoryAppendRows). */
export const DEFAULT_APPEND_ROWS = 256;

/** Starts `fn` after `ms`; the returned function cancels it. Injected by tests to end a window when they choose. */
export type AppendTimer = (fn: () => void, ms: number) => () => void;

export const realTimer: AppendTimer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  (t as { unref?: () => void }).unref?.();
  return () => clearTimeout(t);
};

interface Batch {
  rows: MemoryRow[];
  done: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const done = new Promise<void>((a, b) => {
    resolve = a;
    reject = b;
  });
  // a caller that does not wait for its rows (a failure is logged by whoever listens) never leaves it unhandled
  done.catch(() => undefined);
  return { rows: [], done, resolve, reject };
}

/**
 * New memories' vectors appended to LanceDB together: the rows of the writes made within a short window go in one
 * commit, where each event write made one of its own. A commit costs ~4 ms of CPU at 1,000,000 memories whatever its
 * size, and adds a fragment that later reads and the upkeep's compaction pay for (BENCHMARKS.md "Big worlds: the
 * event write's appends batched").
 *
 * The rows are already in SQLite (the write's durability is SQLite's): until their commit only LanceDB lacks them.
 * So whatever reads or changes the memories table first waits for what is queued (`flush`): a delete never lands
 * before a queued append of the same memory, and a read never misses a row its SQLite side already holds. The
 * commits run one after another in the order queued.
 */
export class MemoryAppends {
  private batch = newBatch();
  /** the commits started so far, chained: resolves when the last is done (never rejects) */
  private tail: Promise<void> = Promise.resolve();
  private cancelTimer: (() => void) | null = null;
  /** rows queued or being committed, per (project, mind, player) group */
  private readonly groups = new Map<string, number>();
  /** the ids of those rows */
  private readonly ids = new Set<string>();

  constructor(
    /** commits the rows (the caller's write: rows and vectors, every generation a write goes to) */
    private readonly commit: (rows: MemoryRow[]) => Promise<void>,
    private readonly opts: { windowMs: number; maxRows: number; timer: AppendTimer },
  ) {}

  /** Rows queued and not yet committed (a commit under way included). */
  get pending(): number {
    return this.ids.size;
  }

  /** Whether this memory's row is queued or being committed. */
  queued(id: string): boolean {
    return this.ids.has(id);
  }

  /** Whether rows of this (project, mind, player) group are queued or being committed. */
  holds(projectId: string, entityMindId: string, playerId: string): boolean {
    return this.groups.has(MemoryGroups.key(projectId, entityMindId, playerId));
  }

  /**
   * Queues new memories' rows (ids never written before) for the next commit; resolves once they are in LanceDB,
   * rejects if that commit failed. A window of 0 commits them at once.
   */
  append(rows: MemoryRow[]): Promise<void> {
    if (!rows.length) return Promise.resolve();
    const b = this.batch;
    if (new Set(rows.map((r) => r.id)).size !== rows.length || rows.some((r) => this.ids.has(r.id))) throw new Error("Memory ids queued twice");
    for (const r of rows) {
      this.ids.add(r.id);
      b.rows.push(r);
      const key = MemoryGroups.key(r.projectId, r.entityMindId, r.playerId);
      this.groups.set(key, (this.groups.get(key) ?? 0) + 1);
    }
    if (b.rows.length >= this.opts.maxRows || this.opts.windowMs <= 0) void this.flush();
    else this.cancelTimer ??= this.opts.timer(() => void this.flush(), this.opts.windowMs);
    return b.done;
  }

  /** Commits what is queued now; resolves when it and every commit before it are done, failed or not. */
  flush(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = null;
    const b = this.batch;
    if (b.rows.length) {
      this.batch = newBatch();
      this.tail = this.tail.then(() => this.run(b));
    }
    return this.tail;
  }

  private async run(b: Batch): Promise<void> {
    try {
      await this.commit(b.rows);
      b.resolve();
    } catch (e) {
      b.reject(e);
    } finally {
      for (const r of b.rows) {
        this.ids.delete(r.id);
        const key = MemoryGroups.key(r.projectId, r.entityMindId, r.playerId);
        const n = (this.groups.get(key) ?? 1) - 1;
        if (n > 0) this.groups.set(key, n);
        else this.groups.delete(key);
      }
    }
  }
}
