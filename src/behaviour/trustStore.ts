import type { Db } from "../db/openDatabase.ts";

/** player_trust: the behaviour feature owns this table (each player's trust in each mind). */

export interface TrustKey {
  projectId: string;
  mindId: string;
  playerId: string;
}

export function readTrustValue(db: Db, k: TrustKey): number | null {
  const r = db
    .query<{ value: number }, [string, string, string]>("SELECT value FROM player_trust WHERE project_id = ? AND mind_id = ? AND player_id = ?")
    .get(k.projectId, k.mindId, k.playerId);
  return r ? r.value : null;
}

export function writeTrustValue(db: Db, k: TrustKey, value: number, at: string): void {
  db.query(
    `INSERT INTO player_trust (project_id, mind_id, player_id, value, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(project_id, mind_id, player_id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  ).run(k.projectId, k.mindId, k.playerId, value, at);
}

/** A player's trust with every mind of a project (export), by mind. */
export function playerTrustRows(db: Db, projectId: string, playerId: string): { mind_id: string; value: number; updated_at: string }[] {
  return db
    .query<{ mind_id: string; value: number; updated_at: string }, [string, string]>(
      "SELECT mind_id, value, updated_at FROM player_trust WHERE project_id = ? AND player_id = ? ORDER BY mind_id",
    )
    .all(projectId, playerId);
}

/** Returns how many were deleted. */
export function deletePlayerTrust(db: Db, projectId: string, playerId: string): number {
  return db.query("DELETE FROM player_trust WHERE project_id = ? AND player_id = ?").run(projectId, playerId).changes;
}
