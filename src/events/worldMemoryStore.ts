import type { Db } from "../db/openDatabase.ts";

/** world_memories (024_events): a mind's knowledge of an event without a player. The events feature owns it. */

export interface WorldMemoryRow {
  id: string;
  project_id: string;
  mind_id: string;
  event_id: string;
  /** an event about a player: the mind's knowledge is that player's memory `memory_id` (null until delivered) */
  player_id: string | null;
  memory_id: string | null;
  importance: number;
  /** 0: witnessed; n: heard through n tellers */
  hop: number;
  told_by: string | null;
  told_by_name: string | null;
  known_at: string;
  spread_at: string | null;
  created_at: string;
}

/** A world memory with its event's text, as a turn renders it. */
export interface KnownEvent extends WorldMemoryRow {
  type: string;
  description: string;
  game_time: string | null;
}

/** Inserts unless the mind already knows the event (one memory per mind and event); true when inserted. */
export function insertWorldMemory(db: Db, m: WorldMemoryRow): boolean {
  return (
    db
      .query(
        `INSERT OR IGNORE INTO world_memories (id, project_id, mind_id, event_id, player_id, memory_id, importance, hop, told_by, told_by_name, known_at, spread_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(m.id, m.project_id, m.mind_id, m.event_id, m.player_id, m.memory_id, m.importance, m.hop, m.told_by, m.told_by_name, m.known_at, m.spread_at, m.created_at).changes > 0
  );
}

/**
 * A turn's candidates among the mind's events known by `now`: the `limit` most recently learned and the
 * `limit` most important (an old big event stays recallable however much small news came after it).
 * Each is one scan of its own index, named: without statistics SQLite would take the recent index for the
 * importance order and sort every world memory of the mind (measured: 100 ms at 100,000 instead of < 1 ms).
 * The candidates are taken by rowid, which each index entry carries: by id, every candidate cost one more descent
 * of the id index, on pages a big world's cache rarely holds (1,000,000 world memories: 4.5 → 2.5 ms of CPU a
 * turn, bench/world-scale.ts).
 */
export function knownEvents(db: Db, projectId: string, mindId: string, now: string, limit: number): KnownEvent[] {
  return db
    .query<KnownEvent, [string, string, string, number, string, string, string, number]>(
      `WITH c AS (
         SELECT r FROM (SELECT rowid AS r FROM world_memories INDEXED BY world_memories_mind WHERE project_id = ? AND mind_id = ? AND player_id IS NULL AND known_at <= ? ORDER BY known_at DESC LIMIT ?)
         UNION
         SELECT r FROM (SELECT rowid AS r FROM world_memories INDEXED BY world_memories_mind_importance WHERE project_id = ? AND mind_id = ? AND player_id IS NULL AND known_at <= ? ORDER BY importance DESC, known_at DESC LIMIT ?)
       )
       SELECT k.*, e.type, e.description, e.game_time FROM c JOIN world_memories k ON k.rowid = c.r JOIN events e ON e.id = k.event_id`,
    )
    .all(projectId, mindId, now, limit, projectId, mindId, now, limit);
}

/** Which of `ids` the mind still knows (a conversation keeps an event's note only while it does). */
export function stillKnown(db: Db, mindId: string, ids: string[]): Set<string> {
  if (!ids.length) return new Set();
  const rows = db
    .query<{ id: string }, string[]>(`SELECT id FROM world_memories WHERE mind_id = ? AND id IN (${ids.map(() => "?").join(",")})`)
    .all(mindId, ...ids);
  return new Set(rows.map((r) => r.id));
}

/** Every mind's knowledge of one event, in the order they learned it. */
export function eventKnowledge(db: Db, projectId: string, eventId: string): (WorldMemoryRow & { mind_name: string })[] {
  return db
    .query<WorldMemoryRow & { mind_name: string }, [string, string]>(
      `SELECT k.*, m.entity_name AS mind_name FROM world_memories k JOIN entity_minds m ON m.id = k.mind_id
       WHERE k.project_id = ? AND k.event_id = ? ORDER BY k.known_at, k.hop, k.id`,
    )
    .all(projectId, eventId);
}

/** Knowledge of player events that has come due and is not yet the player's memory (gossip delivers it). */
export function undelivered(db: Db, now: string, limit: number): (WorldMemoryRow & { description: string })[] {
  return db
    .query<WorldMemoryRow & { description: string }, [string, number]>(
      `SELECT k.*, e.description FROM world_memories k JOIN events e ON e.id = k.event_id
       WHERE k.player_id IS NOT NULL AND k.memory_id IS NULL AND k.known_at <= ? ORDER BY k.known_at LIMIT ?`,
    )
    .all(now, limit);
}

export function setDelivered(db: Db, id: string, memoryId: string): boolean {
  return db.query("UPDATE world_memories SET memory_id = ? WHERE id = ? AND memory_id IS NULL").run(memoryId, id).changes > 0;
}

/** World memories gossip has not passed on yet and that their minds know by `now`, oldest first. */
export function unspread(db: Db, now: string, limit: number): WorldMemoryRow[] {
  return db
    .query<WorldMemoryRow, [string, number]>("SELECT * FROM world_memories WHERE spread_at IS NULL AND known_at <= ? ORDER BY known_at LIMIT ?")
    .all(now, limit);
}

export function markSpread(db: Db, id: string, at: string): boolean {
  return db.query("UPDATE world_memories SET spread_at = ? WHERE id = ? AND spread_at IS NULL").run(at, id).changes > 0;
}

/** The minds that know an event (gossip never tells a mind what it knows). */
export function mindsKnowing(db: Db, eventId: string): Set<string> {
  return new Set(db.query<{ mind_id: string }, [string]>("SELECT mind_id FROM world_memories WHERE event_id = ?").all(eventId).map((r) => r.mind_id));
}

export function countWorldMemories(db: Db, projectId: string): number {
  return db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM world_memories WHERE project_id = ?").get(projectId)!.n;
}

/** The world memories of the project's events without a player, by event: a lore pack's "who knows it". */
export function worldMemoriesOfWorldEvents(db: Db, projectId: string): WorldMemoryRow[] {
  return db
    .query<WorldMemoryRow, [string]>("SELECT * FROM world_memories WHERE project_id = ? AND player_id IS NULL ORDER BY event_id, hop, known_at, mind_id")
    .all(projectId);
}

export function worldMemoryOf(db: Db, mindId: string, eventId: string): WorldMemoryRow | null {
  return db.query<WorldMemoryRow, [string, string]>("SELECT * FROM world_memories WHERE mind_id = ? AND event_id = ?").get(mindId, eventId);
}

/** A pack's change to how a mind knows an event (gossip's progress, spread_at, stays). */
export function updateWorldMemoryKnowledge(db: Db, m: Pick<WorldMemoryRow, "id" | "importance" | "hop" | "told_by" | "told_by_name" | "known_at">): void {
  db.query("UPDATE world_memories SET importance = ?, hop = ?, told_by = ?, told_by_name = ?, known_at = ? WHERE id = ?").run(m.importance, m.hop, m.told_by, m.told_by_name, m.known_at, m.id);
}

export function raiseWorldMemoryImportance(db: Db, id: string, importance: number): void {
  db.query("UPDATE world_memories SET importance = MAX(importance, ?) WHERE id = ?").run(importance, id);
}
