import type { Db } from "../db/openDatabase.ts";
import type { RateLimits } from "./RateLimiter.ts";

/** rate_limits: one row per project (created with the project). */

export function insertRateLimitsRow(db: Db, projectId: string, at: string): void {
  db.query("INSERT INTO rate_limits (project_id, updated_at) VALUES (?, ?)").run(projectId, at);
}

export function rateLimitsRow(db: Db, projectId: string): RateLimits | null {
  const row = db
    .query<{ per_player_per_minute: number; per_project_per_minute: number }, [string]>(
      "SELECT per_player_per_minute, per_project_per_minute FROM rate_limits WHERE project_id = ?",
    )
    .get(projectId);
  return row ? { perPlayerPerMinute: row.per_player_per_minute, perProjectPerMinute: row.per_project_per_minute } : null;
}

export function upsertRateLimits(db: Db, projectId: string, limits: RateLimits, at: string): void {
  db.query(
    `INSERT INTO rate_limits (project_id, per_player_per_minute, per_project_per_minute, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (project_id) DO UPDATE SET per_player_per_minute = excluded.per_player_per_minute,
       per_project_per_minute = excluded.per_project_per_minute, updated_at = excluded.updated_at`,
  ).run(projectId, limits.perPlayerPerMinute, limits.perProjectPerMinute, at);
}
