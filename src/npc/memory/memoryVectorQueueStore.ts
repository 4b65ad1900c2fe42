import { writeTx, type Db } from "../../db/openDatabase.ts";
import type { MemoryRow } from "../../vectors/VectorStore.ts";
import { toMemory, toVectorRow, type MemoryDbRow } from "./memoryRows.ts";

// SQLite access for `memory_vector_queue` (039_memory_vector_queue): the memories whose vectors are queued for
// LanceDB, kept until their commit is done.

/** Inside the memories' write transaction: their vectors are queued. */
export function queueMemoryVectors(db: Db, ids: readonly string[]): void {
  const put = db.query("INSERT OR IGNORE INTO memory_vector_queue (memory_id) VALUES (?)");
  for (const id of ids) put.run(id);
}

/** Their vectors are in LanceDB. */
export function forgetQueuedMemoryVectors(db: Db, ids: readonly string[]): void {
  if (!ids.length) return;
  const del = db.query("DELETE FROM memory_vector_queue WHERE memory_id = ?");
  writeTx(db, () => {
    for (const id of ids) del.run(id);
  });
}

/** Up to `limit` queued memories as LanceDB rows (their SQLite rows now), in id order. */
export function queuedMemoryRows(db: Db, limit: number): MemoryRow[] {
  return db
    .query<MemoryDbRow, [number]>(
      `SELECT m.id, m.project_id, m.mind_id, m.player_id, m.text, m.importance, m.topics, m.created_at, m.updated_at
       FROM memory_vector_queue q JOIN memories m ON m.id = q.memory_id ORDER BY q.memory_id LIMIT ?`,
    )
    .all(limit)
    .map((r) => toVectorRow(r.project_id, toMemory(r)));
}
