import type { Db } from "../db/openDatabase.ts";

/** api_keys: the auth feature owns this table. Only hashes are stored. */

export type KeyType = "server" | "editor";

export interface KeyRow {
  id: string;
  project_id: string;
  type: KeyType;
  name: string | null;
  prefix: string;
  last4: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function insertKey(
  db: Db,
  k: { id: string; projectId: string; type: KeyType; name: string | null; hash: string; prefix: string; last4: string; at: string },
): void {
  db.query(
    `INSERT INTO api_keys (id, project_id, type, name, key_hash, prefix, last4, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(k.id, k.projectId, k.type, k.name, k.hash, k.prefix, k.last4, k.at);
}

export function keysOfProject(db: Db, projectId: string): KeyRow[] {
  return db.query<KeyRow, [string]>("SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id").all(projectId);
}

export function keyById(db: Db, id: string): KeyRow | null {
  return db.query<KeyRow, [string]>("SELECT * FROM api_keys WHERE id = ?").get(id);
}

export function markRevoked(db: Db, id: string, at: string): void {
  db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(at, id);
}

export function keyByHash(db: Db, hash: string): Pick<KeyRow, "id" | "project_id" | "type" | "revoked_at" | "last_used_at"> | null {
  return db
    .query<Pick<KeyRow, "id" | "project_id" | "type" | "revoked_at" | "last_used_at">, [string]>(
      "SELECT id, project_id, type, revoked_at, last_used_at FROM api_keys WHERE key_hash = ?",
    )
    .get(hash);
}

export function touchKey(db: Db, id: string, at: string): void {
  db.query("UPDATE api_keys SET last_used_at = ? WHERE id = ?").run(at, id);
}

/** Removes a key row outright (the Studio's own keys of a previous process: their plain keys died with it). */
export function deleteKeyRow(db: Db, id: string): void {
  db.query("DELETE FROM api_keys WHERE id = ?").run(id);
}
