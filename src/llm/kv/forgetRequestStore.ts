import { createHash } from "node:crypto";
import type { Db } from "../../db/openDatabase.ts";

/**
 * The right to be forgotten across processes. `lorehold memories erase` runs in
 * its own process: it deletes the player's rows and KV snapshot files, but a running server may still
 * hold the player's conversation in a sequence, and would write it to disk again at its next save
 * (after a turn, at eviction, at shutdown). So the CLI also leaves a request here, and the server's
 * `kv-forget` job (every 2 s, and at start) drops that state and deletes any snapshot written since.
 *
 * A request names no player: it holds a hash of project and player id, which the server compares
 * with the conversations it holds. The server deletes each request once applied.
 */

export function forgetHash(projectId: string, playerId: string): string {
  return createHash("sha256").update(`${projectId}\n${playerId}`).digest("hex");
}

/** CLI side: asks a running server to drop the player's KV state. */
export function requestKvForget(db: Db, projectId: string, playerId: string, now: string): void {
  db.query("INSERT OR IGNORE INTO kv_forget (hash, created_at) VALUES (?, ?)").run(forgetHash(projectId, playerId), now);
}

/**
 * Server side: applies every pending request with `forget` (given a matcher of conversation keys),
 * then deletes them. Returns how many requests were applied.
 */
export function applyKvForgetRequests(db: Db, forget: ((match: (conversationKey: string) => boolean) => unknown) | null): number {
  const rows = db.query<{ hash: string }, []>("SELECT hash FROM kv_forget").all();
  if (rows.length === 0) return 0;
  const wanted = new Set(rows.map((r) => r.hash));
  forget?.((key) => {
    // Conversation keys are projectId:mindId:playerId (a player id may hold ':', project and mind ids never).
    const a = key.indexOf(":");
    const b = a < 0 ? -1 : key.indexOf(":", a + 1);
    return b > 0 && wanted.has(forgetHash(key.slice(0, a), key.slice(b + 1)));
  });
  const del = db.query("DELETE FROM kv_forget WHERE hash = ?");
  db.transaction(() => {
    for (const r of rows) del.run(r.hash);
  })();
  return rows.length;
}
