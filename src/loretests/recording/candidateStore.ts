import type { Db } from "../../db/openDatabase.ts";

/** Every SQL statement on lore_test_recording and lore_test_candidates (migration 031). */

export interface RecordingRow {
  enabled: boolean;
  sampleRate: number;
  salt: string;
}

export interface CandidateRow {
  id: string;
  projectId: string;
  mindId: string;
  playerHash: string;
  open: boolean;
  /** JSON: RecordedTurn[] */
  turns: string;
  turnCount: number;
  createdAt: string;
  updatedAt: string;
}

const COLUMNS = `id, project_id AS projectId, mind_id AS mindId, player_hash AS playerHash, open, turns, turn_count AS turnCount,
  created_at AS createdAt, updated_at AS updatedAt`;

type RawCandidate = Omit<CandidateRow, "open"> & { open: number };
const fromRaw = (r: RawCandidate): CandidateRow => ({ ...r, open: r.open === 1 });

export function recordingRow(db: Db, projectId: string): RecordingRow | null {
  const r = db
    .query<{ enabled: number; sample_rate: number; salt: string }, [string]>("SELECT enabled, sample_rate, salt FROM lore_test_recording WHERE project_id = ?")
    .get(projectId);
  return r ? { enabled: r.enabled === 1, sampleRate: r.sample_rate, salt: r.salt } : null;
}

/** The salt is written once, with the first row: changing the setting never changes the hashes already stored. */
export function upsertRecording(db: Db, projectId: string, v: { enabled: boolean; sampleRate: number; salt: string; at: string }): void {
  db.query(
    `INSERT INTO lore_test_recording (project_id, enabled, sample_rate, salt, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (project_id) DO UPDATE SET enabled = excluded.enabled, sample_rate = excluded.sample_rate, updated_at = excluded.updated_at`,
  ).run(projectId, v.enabled ? 1 : 0, v.sampleRate, v.salt, v.at);
}

export function insertCandidate(db: Db, c: Omit<CandidateRow, "open">): void {
  db.query(
    `INSERT INTO lore_test_candidates (id, project_id, mind_id, player_hash, open, turns, turn_count, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)`,
  ).run(c.id, c.projectId, c.mindId, c.playerHash, c.turns, c.turnCount, c.createdAt, c.updatedAt);
}

/** The candidate still recording this (mind, player) conversation, if any. */
export function openCandidate(db: Db, projectId: string, mindId: string, playerHash: string): CandidateRow | null {
  const r = db
    .query<RawCandidate, [string, string, string]>(`SELECT ${COLUMNS} FROM lore_test_candidates WHERE project_id = ? AND mind_id = ? AND player_hash = ? AND open = 1`)
    .get(projectId, mindId, playerHash);
  return r ? fromRaw(r) : null;
}

export function updateCandidateTurns(db: Db, id: string, v: { turns: string; turnCount: number; open: boolean; at: string }): void {
  db.query("UPDATE lore_test_candidates SET turns = ?, turn_count = ?, open = ?, updated_at = ? WHERE id = ?").run(v.turns, v.turnCount, v.open ? 1 : 0, v.at, id);
}

/** A new session of the conversation began: whatever was recording it is complete. */
export function closeCandidates(db: Db, projectId: string, mindId: string, playerHash: string): void {
  db.query("UPDATE lore_test_candidates SET open = 0 WHERE project_id = ? AND mind_id = ? AND player_hash = ? AND open = 1").run(projectId, mindId, playerHash);
}

export function countCandidates(db: Db, projectId: string): number {
  return db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM lore_test_candidates WHERE project_id = ?").get(projectId)!.n;
}

/** A project's candidates, newest first. */
export function listCandidates(db: Db, projectId: string, limit: number): CandidateRow[] {
  return db
    .query<RawCandidate, [string, number]>(`SELECT ${COLUMNS} FROM lore_test_candidates WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`)
    .all(projectId, limit)
    .map(fromRaw);
}

/** One candidate, only within its project (another project's id is not found). */
export function getCandidate(db: Db, projectId: string, id: string): CandidateRow | null {
  const r = db.query<RawCandidate, [string, string]>(`SELECT ${COLUMNS} FROM lore_test_candidates WHERE id = ? AND project_id = ?`).get(id, projectId);
  return r ? fromRaw(r) : null;
}

export function deleteCandidate(db: Db, projectId: string, id: string): boolean {
  return db.query("DELETE FROM lore_test_candidates WHERE id = ? AND project_id = ?").run(id, projectId).changes > 0;
}

export function deletePlayerCandidates(db: Db, projectId: string, playerHash: string): number {
  return db.query("DELETE FROM lore_test_candidates WHERE project_id = ? AND player_hash = ?").run(projectId, playerHash).changes;
}
