import type { AppContext } from "../../core/context.ts";

import { allTombstones, ensureTombstoneTable, forgetTombstones } from "./tombstoneStore.ts";

export { addTombstones, ensureTombstoneTable, pendingTombstones } from "./tombstoneStore.ts";

/** Ids per LanceDB delete (keeps the IN (...) filter short). */
const PURGE_BATCH = 200;

/**
 * Deletes the LanceDB vectors of erased memories, then their tombstones. With
 * `only`, just those ids (the server's erase); otherwise every tombstone (the
 * scheduled job). Idempotent; a failure leaves the tombstones for the next run.
 */
export async function purgeErasedMemories(
  ctx: Pick<AppContext, "db" | "vectors">,
  opts: { signal?: AbortSignal; only?: { projectId: string; ids: readonly string[] } } = {},
): Promise<{ purged: number }> {
  ensureTombstoneTable(ctx.db);
  const rows = opts.only
    ? opts.only.ids.map((id) => ({ memory_id: id, project_id: opts.only!.projectId }))
    : allTombstones(ctx.db);
  const byProject = new Map<string, string[]>();
  for (const r of rows) {
    const list = byProject.get(r.project_id) ?? [];
    list.push(r.memory_id);
    byProject.set(r.project_id, list);
  }
  let purged = 0;
  for (const [projectId, ids] of byProject) {
    for (let i = 0; i < ids.length; i += PURGE_BATCH) {
      if (opts.signal?.aborted) return { purged };
      const batch = ids.slice(i, i + PURGE_BATCH);
      await ctx.vectors.deleteMemories({ projectId, ids: batch });
      forgetTombstones(ctx.db, batch);
      purged += batch.length;
    }
  }
  return { purged };
}
