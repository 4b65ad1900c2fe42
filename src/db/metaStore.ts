import type { Db } from "./openDatabase.ts";

/** meta: per-install key/value pairs (admin token hash, the scanner's upload secret). */

export function readMeta(db: Db, key: string): string | null {
  return db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value ?? null;
}

export function writeMeta(db: Db, key: string, value: string): void {
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
}

/** Sets the key only if it has no value yet (two processes creating it at once agree on the first one). */
export function insertMetaIfAbsent(db: Db, key: string, value: string): void {
  db.query("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)").run(key, value);
}
