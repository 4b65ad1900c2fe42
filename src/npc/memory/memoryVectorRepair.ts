import type { AppContext } from "../../core/context.ts";
import { memoryExists } from "./memoryRows.ts";
import { forgetQueuedMemoryVectors, queuedMemoryRows } from "./memoryVectorQueueStore.ts";

export const MEMORY_VECTOR_REPAIR_JOB = "memory-vector-repair";

/** Queued memories looked at per run (a crash leaves at most a window's, a LanceDB outage more: the next run goes on). */
const RUN_ROWS = 4096;
/** Rows per LanceDB write. */
const WRITE_ROWS = 256;

/**
 * Writes the LanceDB vectors of memories whose queued append never committed (memory_vector_queue: a crash in the
 * append window, a failed commit), from their SQLite rows, then forgets them. Rows this process has queued and not
 * yet committed are left to their commit. The write merges on id (the commit may have landed just before a crash
 * that kept its row here), so a repair never adds a second row; a memory erased while it was written loses its
 * vector again at once, as storeMemories does.
 */
export async function repairMemoryVectors(ctx: Pick<AppContext, "db" | "vectors">, opts: { signal?: AbortSignal } = {}): Promise<{ repaired: number }> {
  // read and filtered with no await between: a row this process is committing is either still held or already forgotten
  const rows = queuedMemoryRows(ctx.db, RUN_ROWS).filter((r) => !ctx.vectors.appends.queued(r.id));
  let repaired = 0;
  for (let i = 0; i < rows.length; i += WRITE_ROWS) {
    if (opts.signal?.aborted) break;
    const batch = rows.slice(i, i + WRITE_ROWS);
    await ctx.vectors.upsertMemories(batch);
    const gone = batch.filter((r) => !memoryExists(ctx.db, r.id));
    for (const r of gone) await ctx.vectors.deleteMemories({ projectId: r.projectId, ids: [r.id] });
    forgetQueuedMemoryVectors(ctx.db, batch.map((r) => r.id));
    repaired += batch.length - gone.length;
  }
  return { repaired };
}
