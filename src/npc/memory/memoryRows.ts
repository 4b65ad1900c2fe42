import { firstColumn, type Db } from "../../db/openDatabase.ts";
import { parseJsonColumn } from "../../core/json.ts";
import type { MemoryRow } from "../../vectors/VectorStore.ts";
import type { Memory, MemoryScope } from "./types.ts";

// SQLite access for the `memories` table (001_initial). SQLite is the source of truth;
// LanceDB only holds a copy of each row with its vector.

export interface MemoryDbRow {
  id: string;
  project_id: string;
  mind_id: string;
  player_id: string;
  text: string;
  importance: number;
  topics: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = "id, project_id, mind_id, player_id, text, importance, topics, created_at, updated_at";

export function toMemory(r: MemoryDbRow): Memory {
  return {
    id: r.id,
    text: r.text,
    importance: r.importance,
    topics: parseJsonColumn<string[]>(r.topics, []),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    entityMindId: r.mind_id,
    playerId: r.player_id,
  };
}

/** The LanceDB copy of a memory. */
export function toVectorRow(projectId: string, m: Memory): MemoryRow {
  return {
    id: m.id,
    projectId,
    entityMindId: m.entityMindId,
    playerId: m.playerId,
    text: m.text,
    importance: m.importance,
    topics: m.topics,
    createdAt: m.createdAt,
  };
}

/**
 * Every memory of one player with one mind, oldest first; those written at one time (a summary's) in the order they
 * were written, not by their random ids, so one conversation's memories read the same on every run.
 */
export function scopeMemories(db: Db, s: MemoryScope): Memory[] {
  return db
    .query<MemoryDbRow, [string, string, string]>(
      `SELECT ${COLUMNS} FROM memories WHERE project_id = ? AND player_id = ? AND mind_id = ? ORDER BY created_at, rowid`,
    )
    .all(s.projectId, s.playerId, s.mindId)
    .map(toMemory);
}

/** Every memory of one player in a project (optionally with one mind), oldest first (ties in the order written). */
export function playerMemories(db: Db, projectId: string, playerId: string, mindId?: string): Memory[] {
  const rows =
    mindId === undefined
      ? db
          .query<MemoryDbRow, [string, string]>(
            `SELECT ${COLUMNS} FROM memories WHERE project_id = ? AND player_id = ? ORDER BY created_at, rowid`,
          )
          .all(projectId, playerId)
      : db
          .query<MemoryDbRow, [string, string, string]>(
            `SELECT ${COLUMNS} FROM memories WHERE project_id = ? AND player_id = ? AND mind_id = ? ORDER BY created_at, rowid`,
          )
          .all(projectId, playerId, mindId);
  return rows.map(toMemory);
}

/** One memory if it still exists in this scope. */
export function memoryInScope(db: Db, s: MemoryScope, id: string): Memory | null {
  const r = db
    .query<MemoryDbRow, [string, string, string, string]>(
      `SELECT ${COLUMNS} FROM memories WHERE id = ? AND project_id = ? AND player_id = ? AND mind_id = ?`,
    )
    .get(id, s.projectId, s.playerId, s.mindId);
  return r ? toMemory(r) : null;
}

export function memoryExists(db: Db, id: string): boolean {
  return db.query<{ one: number }, [string]>("SELECT 1 AS one FROM memories WHERE id = ?").get(id) !== null;
}

/** The ids of a player's memories in a project, by id. */
export function playerMemoryIds(db: Db, projectId: string, playerId: string): string[] {
  return firstColumn(db, "SELECT id FROM memories WHERE project_id = ? AND player_id = ? ORDER BY id", projectId, playerId);
}

export function deletePlayerMemories(db: Db, projectId: string, playerId: string): void {
  db.query("DELETE FROM memories WHERE project_id = ? AND player_id = ?").run(projectId, playerId);
}

export function insertMemoryRow(db: Db, projectId: string, m: Memory): void {
  db.query(
    `INSERT INTO memories (id, project_id, mind_id, player_id, text, importance, topics, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(m.id, projectId, m.entityMindId, m.playerId, m.text, m.importance, JSON.stringify(m.topics), m.createdAt, m.updatedAt);
}

export function updateMemoryRow(db: Db, m: Pick<Memory, "id" | "text" | "importance" | "topics" | "updatedAt">): void {
  db.query("UPDATE memories SET text = ?, importance = ?, topics = ?, updated_at = ? WHERE id = ?").run(
    m.text,
    m.importance,
    JSON.stringify(m.topics),
    m.updatedAt,
    m.id,
  );
}
