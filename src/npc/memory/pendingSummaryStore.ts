import type { Db } from "../../db/openDatabase.ts";
import { parseJsonColumn } from "../../core/json.ts";
import type { MemoryDraft } from "./types.ts";

/**
 * Sessions waiting for their memory summary (table pending_summaries, migration 015): a checkpoint moves a
 * session's messages here in the transaction that settles its last turn; the memory-summary job
 * (summarisePending.ts) summarises each row and deletes it in the transaction that stores its memories.
 */
export interface PendingSummary {
  id: number;
  projectId: string;
  mindId: string;
  playerId: string;
  mindName: string;
  messages: { role: "user" | "assistant"; content: string }[];
  /** the summary's memories once written (a store cut short replays them); null before */
  drafts: MemoryDraft[] | null;
  attempts: number;
  createdAt: string;
}

interface Row {
  id: number;
  project_id: string;
  mind_id: string;
  player_id: string;
  mind_name: string;
  messages: string;
  drafts: string | null;
  attempts: number;
  created_at: string;
}

const COLUMNS = "id, project_id, mind_id, player_id, mind_name, messages, drafts, attempts, created_at";

function toPending(r: Row): PendingSummary {
  return {
    id: r.id,
    projectId: r.project_id,
    mindId: r.mind_id,
    playerId: r.player_id,
    mindName: r.mind_name,
    messages: parseJsonColumn(r.messages, []),
    drafts: r.drafts === null ? null : parseJsonColumn<MemoryDraft[]>(r.drafts, []),
    attempts: r.attempts,
    createdAt: r.created_at,
  };
}

/** Call inside the transaction that resets the session. Returns the row's id. */
export function addPendingSummary(db: Db, p: Omit<PendingSummary, "id" | "drafts" | "attempts">): number {
  const messages = p.messages.map((m) => ({ role: m.role, content: m.content }));
  const r = db
    .query("INSERT INTO pending_summaries (project_id, mind_id, player_id, mind_name, messages, created_at) VALUES (?, ?, ?, ?, ?, ?)")
    .run(p.projectId, p.mindId, p.playerId, p.mindName, JSON.stringify(messages), p.createdAt);
  return Number(r.lastInsertRowid);
}

/** The oldest row after `afterId` (0: the oldest of all) that is due at `now` (a failed one waits), or null. */
export function nextPendingSummary(db: Db, afterId: number, now: string): PendingSummary | null {
  const r = db
    .query<Row, [number, string]>(`SELECT ${COLUMNS} FROM pending_summaries WHERE id > ? AND (retry_after IS NULL OR retry_after <= ?) ORDER BY id LIMIT 1`)
    .get(afterId, now);
  return r ? toPending(r) : null;
}

export function pendingSummaryExists(db: Db, id: number): boolean {
  return db.query<{ n: number }, [number]>("SELECT COUNT(*) AS n FROM pending_summaries WHERE id = ?").get(id)!.n > 0;
}

/** Keeps the summary's memories on the row; false when the row is gone (its player was erased). */
export function savePendingDrafts(db: Db, id: number, drafts: MemoryDraft[]): boolean {
  return db.query("UPDATE pending_summaries SET drafts = ? WHERE id = ?").run(JSON.stringify(drafts), id).changes > 0;
}

/** Counts a failed attempt, to be retried from `retryAfter` on; returns the attempts so far (0 when the row is gone). */
export function failPendingSummary(db: Db, id: number, error: string, retryAfter: string): number {
  db.query("UPDATE pending_summaries SET attempts = attempts + 1, last_error = ?, retry_after = ? WHERE id = ?").run(error.slice(0, 500), retryAfter, id);
  return db.query<{ attempts: number }, [number]>("SELECT attempts FROM pending_summaries WHERE id = ?").get(id)?.attempts ?? 0;
}

export function deletePendingSummary(db: Db, id: number): boolean {
  return db.query("DELETE FROM pending_summaries WHERE id = ?").run(id).changes > 0;
}

/** A player's rows in a project (export), oldest first. */
export function playerPendingSummaries(db: Db, projectId: string, playerId: string): PendingSummary[] {
  return db
    .query<Row, [string, string]>(`SELECT ${COLUMNS} FROM pending_summaries WHERE project_id = ? AND player_id = ? ORDER BY id`)
    .all(projectId, playerId)
    .map(toPending);
}

/** Returns how many were deleted (the right to be forgotten). */
export function deletePlayerPendingSummaries(db: Db, projectId: string, playerId: string): number {
  return db.query("DELETE FROM pending_summaries WHERE project_id = ? AND player_id = ?").run(projectId, playerId).changes;
}

export function countPendingSummaries(db: Db): number {
  return db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM pending_summaries").get()!.n;
}
