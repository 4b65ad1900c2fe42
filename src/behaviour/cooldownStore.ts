import type { Db } from "../db/openDatabase.ts";
import { parseJsonColumn } from "../core/json.ts";
import type { TrustKey } from "./trustStore.ts";

/**
 * action_cooldowns: the behaviour feature owns this table. Per conversation (project, mind, player): how many
 * turns with behaviour it has had, and the turn each action was last used.
 */
export interface CooldownState {
  /** turns with behaviour so far in this conversation */
  turns: number;
  /** action name → the turn it was last used */
  lastUsed: Record<string, number>;
}

export function readCooldowns(db: Db, k: TrustKey): CooldownState {
  const r = db
    .query<{ turns: number; last_used: string }, [string, string, string]>(
      "SELECT turns, last_used FROM action_cooldowns WHERE project_id = ? AND mind_id = ? AND player_id = ?",
    )
    .get(k.projectId, k.mindId, k.playerId);
  return r ? { turns: r.turns, lastUsed: parseJsonColumn<Record<string, number>>(r.last_used, {}) } : { turns: 0, lastUsed: {} };
}

export function writeCooldowns(db: Db, k: TrustKey, s: CooldownState): void {
  db.query(
    `INSERT INTO action_cooldowns (project_id, mind_id, player_id, turns, last_used) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(project_id, mind_id, player_id) DO UPDATE SET turns = excluded.turns, last_used = excluded.last_used`,
  ).run(k.projectId, k.mindId, k.playerId, s.turns, JSON.stringify(s.lastUsed));
}

/** Returns how many conversations' cooldowns were deleted. */
export function deletePlayerCooldowns(db: Db, projectId: string, playerId: string): number {
  return db.query("DELETE FROM action_cooldowns WHERE project_id = ? AND player_id = ?").run(projectId, playerId).changes;
}
