import type { Db } from "../db/openDatabase.ts";
import { normaliseMemoryText } from "../npc/memory/memoryText.ts";

/** events and event_requests (024_events): the events feature owns these tables. */

export interface EventRow {
  id: string;
  project_id: string;
  type: string;
  description: string;
  location_id: string | null;
  player_id: string | null;
  importance: number;
  game_time: string | null;
  secret: number;
  public: number;
  /** JSON list of mind ids */
  witnesses: string;
  created_at: string;
  /** the event's key in a lore pack (null: reported by the game; its pack key is its id) */
  pack_key?: string | null;
  /** when a pack last changed it (null: never) */
  updated_at?: string | null;
}

/** The description as repeats are compared (the memory store's comparison of texts). */
export const eventTextKey = (description: string) => normaliseMemoryText(description);

export function insertEvent(db: Db, e: EventRow): void {
  db.query(
    `INSERT INTO events (id, project_id, type, description, location_id, player_id, importance, game_time, secret, public, witnesses, created_at, text_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(e.id, e.project_id, e.type, e.description, e.location_id, e.player_id, e.importance, e.game_time, e.secret, e.public, e.witnesses, e.created_at, eventTextKey(e.description));
}

/** The project's events without a player, oldest first: a lore pack's history (player events stay the player's). */
export function worldEvents(db: Db, projectId: string): EventRow[] {
  return db.query<EventRow, [string]>("SELECT * FROM events WHERE project_id = ? AND player_id IS NULL ORDER BY created_at, COALESCE(pack_key, id)").all(projectId);
}

/** The event a pack entry names: the one it wrote (its pack key), or a reported one exported under its id. */
export function eventByPackKey(db: Db, projectId: string, key: string): EventRow | null {
  return db
    .query<EventRow, [string, string, string]>("SELECT * FROM events WHERE project_id = ? AND player_id IS NULL AND (pack_key = ? OR (pack_key IS NULL AND id = ?))")
    .get(projectId, key, key);
}

export function insertPackEvent(db: Db, e: EventRow & { pack_key: string }): void {
  insertEvent(db, e);
  db.query("UPDATE events SET pack_key = ? WHERE id = ?").run(e.pack_key, e.id);
}

/** A pack's changes to an event it names (its id and project stay). */
export function updatePackEvent(db: Db, e: EventRow, at: string): void {
  db.query(
    `UPDATE events SET type = ?, description = ?, location_id = ?, importance = ?, game_time = ?, secret = ?, public = ?, witnesses = ?, created_at = ?, updated_at = ?, text_key = ? WHERE id = ?`,
  ).run(e.type, e.description, e.location_id, e.importance, e.game_time, e.secret, e.public, e.witnesses, e.created_at, at, eventTextKey(e.description), e.id);
}

/** A pack changed who knows the event. */
export function touchEvent(db: Db, id: string, at: string): void {
  db.query("UPDATE events SET updated_at = ? WHERE id = ?").run(at, id);
}

/** The ids of the project's events without a player of `type` and text key `textKey` recorded from `since` to `until`, newest first. */
export function sameTextEvents(db: Db, projectId: string, type: string, textKey: string, since: string, until: string, limit: number): string[] {
  return db
    .query<{ id: string }, [string, string, string, string, string, number]>(
      "SELECT id FROM events INDEXED BY events_same_text WHERE project_id = ? AND type = ? AND text_key = ? AND created_at >= ? AND created_at <= ? AND player_id IS NULL ORDER BY created_at DESC LIMIT ?",
    )
    .all(projectId, type, textKey, since, until, limit)
    .map((r) => r.id);
}

export function eventById(db: Db, projectId: string, id: string): EventRow | null {
  return db.query<EventRow, [string, string]>("SELECT * FROM events WHERE project_id = ? AND id = ?").get(projectId, id);
}

export interface EventFilter {
  type?: string;
  playerId?: string;
  /** events the mind witnessed or heard of */
  mindId?: string;
  limit: number;
  offset: number;
}

/** The project's events, newest first, with the filters; `total` counts every match. */
export function eventPage(db: Db, projectId: string, f: EventFilter): { rows: EventRow[]; total: number } {
  const where = ["e.project_id = ?"];
  const args: (string | number)[] = [projectId];
  if (f.type !== undefined) (where.push("e.type = ?"), args.push(f.type));
  if (f.playerId !== undefined) (where.push("e.player_id = ?"), args.push(f.playerId));
  if (f.mindId !== undefined) {
    where.push("(EXISTS (SELECT 1 FROM json_each(e.witnesses) w WHERE w.value = ?) OR EXISTS (SELECT 1 FROM world_memories k WHERE k.event_id = e.id AND k.mind_id = ?))");
    args.push(f.mindId, f.mindId);
  }
  const sql = `FROM events e WHERE ${where.join(" AND ")}`;
  const total = db.query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n ${sql}`).get(...args)!.n;
  const rows = db.query<EventRow, (string | number)[]>(`SELECT e.* ${sql} ORDER BY e.created_at DESC, e.id DESC LIMIT ? OFFSET ?`).all(...args, f.limit, f.offset);
  return { rows, total };
}

/** A player's events in a project (erasure), ids only. */
export function deletePlayerEvents(db: Db, projectId: string, playerId: string): number {
  return db.query("DELETE FROM events WHERE project_id = ? AND player_id = ?").run(projectId, playerId).changes;
}

export function playerEvents(db: Db, projectId: string, playerId: string): EventRow[] {
  return db.query<EventRow, [string, string]>("SELECT * FROM events WHERE project_id = ? AND player_id = ? ORDER BY created_at, id").all(projectId, playerId);
}

// ---- idempotency

export function findEventRequest(db: Db, projectId: string, key: string): { body_hash: string; response: string } | null {
  return db
    .query<{ body_hash: string; response: string }, [string, string]>("SELECT body_hash, response FROM event_requests WHERE project_id = ? AND idempotency_key = ?")
    .get(projectId, key);
}

export function insertEventRequest(db: Db, projectId: string, key: string, bodyHash: string, response: string, at: string): void {
  db.query("INSERT INTO event_requests (project_id, idempotency_key, body_hash, response, created_at) VALUES (?, ?, ?, ?, ?)").run(projectId, key, bodyHash, response, at);
}

export function setEventRequestResponse(db: Db, projectId: string, key: string, response: string): void {
  db.query("UPDATE event_requests SET response = ? WHERE project_id = ? AND idempotency_key = ?").run(response, projectId, key);
}

/** Keys older than `before` are forgotten (a retry comes within minutes; the table stays small). */
export function deleteEventRequestsBefore(db: Db, before: string): number {
  return db.query("DELETE FROM event_requests WHERE created_at < ?").run(before).changes;
}
