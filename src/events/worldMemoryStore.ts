import type { Db } from "../db/openDatabase.ts";
import { keywords } from "../npc/memory/memoryText.ts";

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

/**
 * An event's content words as a world memory keeps them (`words`, migration 037): its keywords, each with a space
 * on both sides, so a ranking tests a word with one substring search and builds nothing per candidate.
 */
export function eventWords(type: string, description: string): string {
  const words = [...keywords(`${type} ${description}`)];
  return words.length ? ` ${words.join(" ")} ` : " ";
}

/** The last event whose words an insert computed: an event's witnesses and hearers are inserted one after another. */
let lastWords: {
  eventId: string;
  type: string;
  description: string;
  words: string;
} | null = null;
function wordsOfEvent(db: Db, eventId: string): string | null {
  const e = db.query<{ type: string; description: string }, [string]>("SELECT type, description FROM events WHERE id = ?").get(eventId);
  if (!e) return null;
  if (lastWords?.eventId === eventId && lastWords.type === e.type && lastWords.description === e.description) return lastWords.words;
  lastWords = {
    eventId,
    type: e.type,
    description: e.description,
    words: eventWords(e.type, e.description),
  };
  return lastWords.words;
}

/**
 * Inserts unless the mind already knows the event (one memory per mind and event); true when inserted. A memory of
 * a world event gets its event's words (read here, so every writer fills them); a player's is that player's memory.
 */
export function insertWorldMemory(db: Db, m: WorldMemoryRow): boolean {
  const words = m.player_id === null ? wordsOfEvent(db, m.event_id) : null;
  return (
    db
      .query(
        `INSERT OR IGNORE INTO world_memories (id, project_id, mind_id, event_id, player_id, memory_id, importance, hop, told_by, told_by_name, known_at, spread_at, created_at, words)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(m.id, m.project_id, m.mind_id, m.event_id, m.player_id, m.memory_id, m.importance, m.hop, m.told_by, m.told_by_name, m.known_at, m.spread_at, m.created_at, words).changes > 0
  );
}

/**
 * A turn's candidates as the ranking reads them, [rowid, id, importance, known_at, words] (words null until filled):
 * the same two scans as knownEvents, from the covering indexes alone (no row, no event is looked up).
 */
export type Candidate = [number, string, number, string, string | null];
export function candidateWords(db: Db, projectId: string, mindId: string, now: string, limit: number): Candidate[] {
  return db
    .query<Record<string, unknown>, [string, string, string, number, string, string, string, number]>(
      `SELECT * FROM (SELECT rowid, id, importance, known_at, words FROM world_memories INDEXED BY world_memories_mind WHERE project_id = ? AND mind_id = ? AND player_id IS NULL AND known_at <= ? ORDER BY known_at DESC LIMIT ?)
       UNION
       SELECT * FROM (SELECT rowid, id, importance, known_at, words FROM world_memories INDEXED BY world_memories_mind_importance WHERE project_id = ? AND mind_id = ? AND player_id IS NULL AND known_at <= ? ORDER BY importance DESC, known_at DESC LIMIT ?)`,
    )
    .values(projectId, mindId, now, limit, projectId, mindId, now, limit) as unknown as Candidate[];
}

/** The text of the events of world memories `rowids` (a candidate whose words are not filled yet). */
export function candidateTexts(db: Db, rowids: number[]): Map<number, string> {
  const rows = db
    .query<{ r: number; type: string; description: string }, number[]>(
      `SELECT k.rowid AS r, e.type, e.description FROM world_memories k JOIN events e ON e.id = k.event_id WHERE k.rowid IN (${rowids.map(() => "?").join(",")})`,
    )
    .all(...rowids);
  return new Map(rows.map((r) => [r.r, `${r.type} ${r.description}`]));
}

/** World memories `rowids` with their events' text, in that order (a ranking's kept few). */
export function knownByRowid(db: Db, rowids: number[]): KnownEvent[] {
  if (!rowids.length) return [];
  const rows = db
    .query<KnownEvent & { r: number }, number[]>(
      `SELECT k.rowid AS r, k.*, e.type, e.description, e.game_time FROM world_memories k JOIN events e ON e.id = k.event_id WHERE k.rowid IN (${rowids.map(() => "?").join(",")})`,
    )
    .all(...rowids);
  const by = new Map(rows.map(({ r, ...k }) => [r, k as KnownEvent]));
  return rowids.flatMap((r) => by.get(r) ?? []);
}

/** World memories whose words are not filled yet (rows from before migration 037, or of an event whose text changed), a slice. */
export function unworded(db: Db, limit: number): { r: number; type: string; description: string; event_id: string }[] {
  return db
    .query<{ r: number; type: string; description: string; event_id: string }, [number]>(
      `SELECT k.rowid AS r, k.event_id, e.type, e.description FROM world_memories k INDEXED BY world_memories_unworded JOIN events e ON e.id = k.event_id
       WHERE k.words IS NULL AND k.player_id IS NULL LIMIT ?`,
    )
    .all(limit);
}

/** A pack changed an event's text: its world memories' words are the new text's (the trigger had cleared them). */
export function refreshEventWords(db: Db, eventId: string, type: string, description: string): void {
  db.query("UPDATE world_memories SET words = ? WHERE event_id = ? AND player_id IS NULL").run(eventWords(type, description), eventId);
}

export function setWords(db: Db, rowid: number, words: string): void {
  db.query("UPDATE world_memories SET words = ? WHERE rowid = ? AND words IS NULL").run(words, rowid);
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
