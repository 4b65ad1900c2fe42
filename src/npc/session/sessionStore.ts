import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import type { Session, SessionMessage } from "./sessionTypes.ts";
import type { Db } from "../../db/openDatabase.ts";

/** A session is (project, mind, playerId): the conversation the server keeps. */
export function loadSession(ctx: ServiceContext, projectId: string, mindId: string, playerId: string): Session {
  const r = ctx.db
    .query<{ id: string; messages: string; turn_count: number; token_count: number }, [string, string, string]>(
      "SELECT id, messages, turn_count, token_count FROM sessions WHERE project_id = ? AND mind_id = ? AND player_id = ?",
    )
    .get(projectId, mindId, playerId);
  if (!r) return { id: null, messages: [], turnCount: 0, tokenCount: 0 };
  return { id: r.id, messages: parseJsonColumn<SessionMessage[]>(r.messages, []), turnCount: r.turn_count, tokenCount: r.token_count };
}

export function saveSession(
  ctx: ServiceContext,
  key: { projectId: string; mindId: string; playerId: string },
  s: { messages: SessionMessage[]; tokenCount: number },
): void {
  const now = nowIso(ctx);
  const turns = s.messages.filter((m) => m.role === "user").length;
  ctx.db
    .query(
      `INSERT INTO sessions (id, project_id, mind_id, player_id, messages, turn_count, token_count, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(project_id, mind_id, player_id) DO UPDATE SET messages = excluded.messages,
         turn_count = excluded.turn_count, token_count = excluded.token_count, updated_at = excluded.updated_at`,
    )
    .run(newId("sess"), key.projectId, key.mindId, key.playerId, JSON.stringify(s.messages), turns, s.tokenCount, now, now);
}

/** A player's sessions in a project, by mind. */
export function playerSessionRows(db: Db, projectId: string, playerId: string): { mind_id: string; messages: string; updated_at: string }[] {
  return db
    .query<{ mind_id: string; messages: string; updated_at: string }, [string, string]>(
      "SELECT mind_id, messages, updated_at FROM sessions WHERE project_id = ? AND player_id = ? ORDER BY mind_id",
    )
    .all(projectId, playerId);
}

/** Returns how many were deleted. */
export function deletePlayerSessions(db: Db, projectId: string, playerId: string): number {
  return db.query("DELETE FROM sessions WHERE project_id = ? AND player_id = ?").run(projectId, playerId).changes;
}

/** Deletes one conversation (a scene without a player forgets its minds' talk when it ends). */
export function deleteSession(db: Db, key: { projectId: string; mindId: string; playerId: string }): void {
  db.query("DELETE FROM sessions WHERE project_id = ? AND mind_id = ? AND player_id = ?").run(key.projectId, key.mindId, key.playerId);
}
