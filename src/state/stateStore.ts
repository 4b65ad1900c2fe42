import type { Db } from "../db/openDatabase.ts";
import type { StateValue } from "./stateKeys.ts";

/**
 * world_state, player_state and state_schema: the state feature owns these tables (migration 019).
 * A scope is the world of a project (`player` null) or one player of it; every statement is scoped
 * to the project, so another project's state is never read or written.
 */

export interface ScopeRef {
  projectId: string;
  /** null: the world */
  playerId: string | null;
}

function parse(text: string): StateValue | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "boolean" || typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) ? v : undefined;
  } catch {
    return undefined;
  }
}

function rows(db: Db, s: ScopeRef): { key: string; value: string }[] {
  return s.playerId === null
    ? db.query<{ key: string; value: string }, [string]>("SELECT key, value FROM world_state WHERE project_id = ? ORDER BY key").all(s.projectId)
    : db
        .query<{ key: string; value: string }, [string, string]>("SELECT key, value FROM player_state WHERE project_id = ? AND player_id = ? ORDER BY key")
        .all(s.projectId, s.playerId);
}

/** The values set in a scope, by key (in key order). */
export function readScope(db: Db, s: ScopeRef): Map<string, StateValue> {
  const out = new Map<string, StateValue>();
  for (const r of rows(db, s)) {
    const v = parse(r.value);
    if (v !== undefined) out.set(r.key, v);
  }
  return out;
}

/** Sets a key; an unchanged value is not rewritten (its updated_at stays). */
export function upsertValue(db: Db, s: ScopeRef, key: string, value: StateValue, at: string): void {
  const json = JSON.stringify(value);
  if (s.playerId === null) {
    db.query(
      `INSERT INTO world_state (project_id, key, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(project_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at WHERE value <> excluded.value`,
    ).run(s.projectId, key, json, at);
  } else {
    db.query(
      `INSERT INTO player_state (project_id, player_id, key, value, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(project_id, player_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at WHERE value <> excluded.value`,
    ).run(s.projectId, s.playerId, key, json, at);
  }
}

export function deleteValue(db: Db, s: ScopeRef, key: string): void {
  if (s.playerId === null) db.query("DELETE FROM world_state WHERE project_id = ? AND key = ?").run(s.projectId, key);
  else db.query("DELETE FROM player_state WHERE project_id = ? AND player_id = ? AND key = ?").run(s.projectId, s.playerId, key);
}

/** Deletes the keys under `prefix.` except `keep` (an exclusive group). substr, not LIKE: `_` in a key is not a wildcard. */
export function deleteGroupExcept(db: Db, s: ScopeRef, prefix: string, keep: string): void {
  const p = `${prefix}.`;
  if (s.playerId === null) {
    db.query("DELETE FROM world_state WHERE project_id = ? AND substr(key, 1, ?) = ? AND key <> ?").run(s.projectId, p.length, p, keep);
  } else {
    db.query("DELETE FROM player_state WHERE project_id = ? AND player_id = ? AND substr(key, 1, ?) = ? AND key <> ?").run(s.projectId, s.playerId, p.length, p, keep);
  }
}

export function countKeys(db: Db, s: ScopeRef): number {
  return s.playerId === null
    ? db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM world_state WHERE project_id = ?").get(s.projectId)!.n
    : db.query<{ n: number }, [string, string]>("SELECT COUNT(*) AS n FROM player_state WHERE project_id = ? AND player_id = ?").get(s.projectId, s.playerId)!.n;
}

/** A player's state goes with the player (the right to be forgotten); returns how many keys went. */
export function deletePlayerState(db: Db, projectId: string, playerId: string): number {
  return db.query("DELETE FROM player_state WHERE project_id = ? AND player_id = ?").run(projectId, playerId).changes;
}

export function readSchemaRow(db: Db, projectId: string): { keys: string; exclusive_groups: string } | null {
  return db.query<{ keys: string; exclusive_groups: string }, [string]>("SELECT keys, exclusive_groups FROM state_schema WHERE project_id = ?").get(projectId);
}

export function writeSchemaRow(db: Db, projectId: string, keys: string, groups: string, at: string): void {
  db.query(
    `INSERT INTO state_schema (project_id, keys, exclusive_groups, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(project_id) DO UPDATE SET keys = excluded.keys, exclusive_groups = excluded.exclusive_groups, updated_at = excluded.updated_at
     WHERE keys <> excluded.keys OR exclusive_groups <> excluded.exclusive_groups`,
  ).run(projectId, keys, groups, at);
}
