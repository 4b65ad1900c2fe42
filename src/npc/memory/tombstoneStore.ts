import type { Db } from "../../db/openDatabase.ts";

/**
 * Memory ids whose SQLite rows were erased but whose LanceDB vectors may still
 * exist. Only the server process writes LanceDB, so the CLI's erase leaves a
 * tombstone per memory and the server's `purgeErasedMemories` job deletes the
 * vectors and then the tombstones. The server's own erase uses the same path
 * (a failed LanceDB delete is retried by the job). A tombstone holds no player
 * id: nothing of the erased player outlives the purge.
 *
 * The table is not in a numbered migration yet (the memory module was written
 * beside 001_initial); it is created on first use. Equivalent migration:
 *   CREATE TABLE memory_tombstones (memory_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, erased_at TEXT NOT NULL);
 */
const CREATE_SQL =
  "CREATE TABLE IF NOT EXISTS memory_tombstones (memory_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, erased_at TEXT NOT NULL)";

const ready = new WeakSet<Db>();

export function ensureTombstoneTable(db: Db): void {
  if (ready.has(db)) return;
  db.exec(CREATE_SQL);
  ready.add(db);
}

/** Records tombstones for `ids` (call inside the transaction that deletes their rows). */
export function addTombstones(db: Db, projectId: string, ids: readonly string[], erasedAt: string): void {
  ensureTombstoneTable(db);
  const insert = db.query("INSERT OR IGNORE INTO memory_tombstones (memory_id, project_id, erased_at) VALUES (?, ?, ?)");
  for (const id of ids) insert.run(id, projectId, erasedAt);
}

/** Every tombstone, by project. */
export function allTombstones(db: Db): { memory_id: string; project_id: string }[] {
  ensureTombstoneTable(db);
  return db.query<{ memory_id: string; project_id: string }, []>("SELECT memory_id, project_id FROM memory_tombstones ORDER BY project_id, memory_id").all();
}

/** Drops the tombstones of purged memories, in one transaction. */
export function forgetTombstones(db: Db, ids: readonly string[]): void {
  const forget = db.query("DELETE FROM memory_tombstones WHERE memory_id = ?");
  db.transaction(() => {
    for (const id of ids) forget.run(id);
  })();
}

export function pendingTombstones(db: Db): number {
  ensureTombstoneTable(db);
  return db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memory_tombstones").get()!.n;
}
