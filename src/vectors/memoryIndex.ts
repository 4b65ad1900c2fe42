import { asData, vectorsFor } from "./generation.ts";
import { memoryFilter, memoryGroupFilter } from "./filters.ts";
import type { MemoryRow } from "./rows.ts";
import { MEMORY_COLUMNS } from "./schemas.ts";
import { memoryRecord, toMemoryRow, type Raw } from "./vectorRecords.ts";
import { MemoryGroups } from "./memoryGroups.ts";
import { DEFAULT_APPEND_ROWS, DEFAULT_APPEND_WINDOW_MS, MemoryAppends, realTimer, type AppendTimer } from "./MemoryAppends.ts";
import type { VectorTables } from "./vectorTables.ts";
export type { MemoryGroupRead, MemorySide } from "./vectorTables.ts";

/** The memories table: one row per memory, searched per (project, mind, player). */

/** The copy is a cache checked on every read: failing to write it costs a later LanceDB read, not the write. */
function copyToSide(t: VectorTables, g: { embedderId: string }, rows: MemoryRow[], vectors: ArrayLike<number>[]): void {
  try {
    t.memorySide?.write(g.embedderId, rows, vectors);
  } catch {
    // the group's next first search reads LanceDB and copies it again
  }
}

/**
 * Writes memories' rows and vectors: replaces those whose ids the table has, adds the others. `fresh` (every id
 * new, as an event's or gossip's memories are) appends without the merge: a merge-insert joins the rows on `id`
 * across the whole table, ~15 ms of CPU at 1,000,000 memories against ~4 for an append (bench/memory-write.ts).
 */
export async function upsertMemories(t: VectorTables, rows: MemoryRow[], fresh = false): Promise<void> {
  t.assertOpen();
  if (!rows.length) return;
  if (new Set(rows.map((r) => r.id)).size !== rows.length) throw new Error("Duplicate memory ids");
  // a queued append of the same id lands first: a merge after it replaces it, never sits beside it
  await t.appends.flush();
  await writeMemories(t, rows, fresh);
}

/**
 * The write itself, without the checks of upsertMemories: the queued appends' commit (MemoryAppends) runs it, also
 * while the store closes (its last commit is part of the close).
 */
export async function writeMemories(t: VectorTables, rows: MemoryRow[], fresh: boolean): Promise<void> {
  const texts = rows.map((r) => r.text);
  const pre = await t.embedForActive(texts);
  await t.locks.memories.run(async () => {
    for (const g of t.writeTargets()) {
      const vectors = await vectorsFor(g, texts, pre);
      const data = asData(g, "memories", rows.map((r, i) => memoryRecord(r, vectors?.[i] ?? null)));
      if (fresh) await g.memories.add(data);
      else await g.memories.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
      g.memoryGroups.upserted(rows, vectors); // synchronously after the commit (see MemoryGroups)
      // the active generation's vectors only: a re-embed's new ones are another embedder's (copied after its swap)
      if (vectors && g === t.writeTargets()[0]) copyToSide(t, g, rows, vectors);
    }
  });
  t.upkeep.noteCommit("memories", rows.length);
}

/** The store's queue of new memories: each commit writes them, then tells SQLite's side they are no longer queued. */
export function memoryAppends(t: VectorTables, opts: { windowMs?: number; maxRows?: number; timer?: AppendTimer }): MemoryAppends {
  const commit = async (rows: MemoryRow[]) => {
    await writeMemories(t, rows, true);
    try {
      t.memorySide?.appended?.(rows.map((r) => r.id));
    } catch {
      // the rows stay marked as queued: the repair job merges them again, which changes nothing
    }
  };
  return new MemoryAppends(commit, {
    windowMs: Math.max(0, opts.windowMs ?? DEFAULT_APPEND_WINDOW_MS),
    maxRows: Math.max(1, opts.maxRows ?? DEFAULT_APPEND_ROWS),
    timer: opts.timer ?? realTimer,
  });
}

export async function deleteMemories(t: VectorTables, filter: { projectId: string; playerId?: string; entityMindId?: string; ids?: string[] }): Promise<void> {
  t.assertOpen();
  if (filter.ids && filter.ids.length === 0) return; // "these ids" with none listed deletes nothing
  const where = memoryFilter(filter);
  await t.appends.flush(); // a delete never lands before a queued append of the same memory
  await t.locks.memories.run(async () => {
    for (const g of t.writeTargets()) {
      await g.memories.delete(where);
      g.memoryGroups.deleted(filter);
    }
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
  // the group's rows SQLite already holds are all in LanceDB before it is read
  if (t.appends.holds(q.projectId, q.entityMindId, q.playerId)) await t.appends.flush();
  const g = t.acquire();
  try {
    if (!g.embedder) return [];
    const [v] = await g.embedder.embed([q.query]);
    const key = MemoryGroups.key(q.projectId, q.entityMindId, q.playerId);
    const cached = g.memoryGroups.search(key, v, k);
    if (cached) return cached;
    // the whole group, once: later turns of the conversation rank it in memory
    const since = g.memoryGroups.epoch;
    const side = t.memorySide?.read(g.embedderId, g.dims, q);
    if (side) {
      g.memoryGroups.install(key, side.rows, side.vectors, since);
      return g.memoryGroups.search(key, v, k) ?? new MemoryGroups(g.dims, side.rows.length + 1).searchOnce(side.rows, side.vectors, v, k);
    }
    // by player and mind only (memoryGroupFilter says why): the loop below keeps the project's rows alone
    const where = memoryGroupFilter(q.entityMindId, q.playerId);
    const raw = (await g.memories.query().where(where).select([...MEMORY_COLUMNS, "vector"]).toArray()) as Raw[];
    const rows: MemoryRow[] = [];
    const vectors: ArrayLike<number>[] = [];
    for (const r of raw) {
      const row = toMemoryRow(r);
      if (r.vector == null || row.projectId !== q.projectId || row.entityMindId !== q.entityMindId || row.playerId !== q.playerId) continue;
      rows.push(row);
      vectors.push(r.vector.toArray ? r.vector.toArray() : r.vector);
    }
    g.memoryGroups.install(key, rows, vectors, since);
    // unless a write landed meanwhile: it copied its own rows, newer than this read's
    if (since === g.memoryGroups.epoch) copyToSide(t, g, rows, vectors);
    return g.memoryGroups.search(key, v, k) ?? new MemoryGroups(g.dims, rows.length + 1).searchOnce(rows, vectors, v, k);
  } finally {
    g.readers--;
  }
}

/**
 * One slice of the active generation's memories table in its scan order: rows [offset, offset + limit) with their
 * vectors, for the fill that copies a store's memories beside their rows (an older data folder, a re-embed's new
 * embedder). A slice, not a stream of the whole table: LanceDB's scan reads ahead of a slow consumer, and a stream
 * of 1,000,000 memories held ~1.5 GB of the process until its end (and the allocator kept it after). `scanned` counts
 * the slice's rows, vector or not, so the caller's next offset is offset + scanned; fewer than `limit` is the end.
 * Null with no embedder. Offsets are positions in the table as it is at each call: a deletion meanwhile shifts later
 * rows down and the next slice skips as many, which the copy tolerates (a group it lacks reads LanceDB at its first
 * search and is copied then).
 */
export async function readMemorySlice(t: VectorTables, offset: number, limit: number): Promise<{ embedderId: string; rows: MemoryRow[]; vectors: ArrayLike<number>[]; scanned: number } | null> {
  t.assertOpen();
  await t.appends.flush(); // the copy reads the table as SQLite's side has it
  const g = t.acquire();
  try {
    if (!g.embedder) return null;
    const raw = (await g.memories.query().select([...MEMORY_COLUMNS, "vector"]).offset(offset).limit(limit).toArray()) as Raw[];
    const rows: MemoryRow[] = [];
    const vectors: ArrayLike<number>[] = [];
    for (const r of raw) {
      if (r.vector == null) continue;
      rows.push(toMemoryRow(r));
      vectors.push(r.vector.toArray ? r.vector.toArray() : r.vector);
    }
    return { embedderId: g.embedderId, rows, vectors, scanned: raw.length };
  } finally {
    g.readers--;
  }
}
