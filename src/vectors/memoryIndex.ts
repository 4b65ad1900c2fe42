import { asData, vectorsFor } from "./generation.ts";
import { memoryFilter } from "./filters.ts";
import type { MemoryRow } from "./rows.ts";
import { MEMORY_COLUMNS } from "./schemas.ts";
import { memoryRecord, toMemoryRow } from "./vectorRecords.ts";
import type { VectorTables } from "./vectorTables.ts";

/** The memories table: one row per memory, searched per (project, mind, player). */

export async function upsertMemories(t: VectorTables, rows: MemoryRow[]): Promise<void> {
  t.assertOpen();
  if (!rows.length) return;
  if (new Set(rows.map((r) => r.id)).size !== rows.length) throw new Error("Duplicate memory ids");
  const texts = rows.map((r) => r.text);
  const pre = await t.embedForActive(texts);
  await t.locks.memories.run(async () => {
    for (const g of t.writeTargets()) {
      const vectors = await vectorsFor(g, texts, pre);
      const data = asData(g, "memories", rows.map((r, i) => memoryRecord(r, vectors?.[i] ?? null)));
      await g.memories.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
    }
  });
  t.upkeep.noteCommit("memories", rows.length);
}

export async function deleteMemories(t: VectorTables, filter: { projectId: string; playerId?: string; entityMindId?: string; ids?: string[] }): Promise<void> {
  t.assertOpen();
  if (filter.ids && filter.ids.length === 0) return; // "these ids" with none listed deletes nothing
  const where = memoryFilter(filter);
  await t.locks.memories.run(async () => {
    for (const g of t.writeTargets()) await g.memories.delete(where);
  });
  t.upkeep.noteCommit("memories");
}

/** Memories of this player with this mind, most similar to `query` first; score is cosine similarity. */
export async function searchMemories(t: VectorTables, q: {
  projectId: string;
  entityMindId: string;
  playerId: string;
  query: string;
  k: number;
}): Promise<(MemoryRow & { score: number })[]> {
  t.assertOpen();
  const k = Math.floor(q.k);
  if (!(k > 0)) return [];
  const g = t.acquire();
  try {
    if (!g.embedder) return [];
    const [v] = await g.embedder.embed([q.query]);
    const where = memoryFilter({ projectId: q.projectId, entityMindId: q.entityMindId, playerId: q.playerId });
    const rows = await g.memories
      .vectorSearch(v)
      .distanceType("cosine")
      .where(where)
      .select([...MEMORY_COLUMNS, "_distance"])
      .limit(k)
      .toArray();
    return rows
      .map((r) => ({ ...toMemoryRow(r), score: 1 - Number(r._distance) }))
      .filter((m) => m.projectId === q.projectId && m.entityMindId === q.entityMindId && m.playerId === q.playerId);
  } finally {
    g.readers--;
  }
}
