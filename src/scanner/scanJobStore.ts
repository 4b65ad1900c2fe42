import type { SQLQueryBindings } from "bun:sqlite";
import { firstColumn, type Db } from "../db/openDatabase.ts";
import { SCAN_STATUSES, type ScanStatus } from "./limits.ts";

/**
 * scan_jobs: the scanner owns this table and every read and write of it is
 * here. A job's status only moves along ALLOWED_TRANSITIONS, through
 * transition(); everything else about a job is written by named updates.
 */

/** A scan_jobs row (001 + 002 columns). */
export interface ScanJobRow {
  id: string;
  project_id: string;
  status: ScanStatus;
  idempotency_key: string | null;
  manifest: string;
  total_size_bytes: number;
  user_context: string | null;
  total_files: number;
  completed_files: number;
  failed_files: number;
  estimated_micro: number;
  reserved_micro: number;
  reservation_id: string | null;
  actual_micro: number;
  credit_adjustment_micro: number;
  adjustment_message: string;
  error_message: string | null;
  skipped: string;
  attempts: number;
  upload_expires_at: string;
  created_at: string;
  confirmed_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  committed_at: string | null;
  uploaded_at: string | null;
  upload_bytes: number | null;
  bytes_processed: number;
  llm_tokens: number;
  cost_by_extension: string;
}

/** Which status may follow which (DESIGN.md "Scanner"); COMPLETED and FAILED are final. */
export const ALLOWED_TRANSITIONS: Readonly<Record<ScanStatus, readonly ScanStatus[]>> = {
  // confirmed, or cancelled / upload window expired
  PENDING_UPLOAD: ["QUEUED", "FAILED"],
  // claimed by the worker, or expired 24 h after confirmation
  QUEUED: ["PROCESSING", "FAILED"],
  // ended, or put back in the queue (shutdown, an error with attempts left, a crash found at boot)
  PROCESSING: ["COMPLETED", "FAILED", "QUEUED"],
  COMPLETED: [],
  FAILED: [],
};

/** The columns a transition may set beside the status. */
export type ScanJobFields = Partial<Omit<ScanJobRow, "id" | "project_id" | "status" | "attempts">>;

/** Thrown for a transition the table does not allow: a bug in the caller, never a caller's input. */
export class IllegalScanTransition extends Error {}

/**
 * Moves a job from one of `from` to `to`, setting `set`; `attemptsDelta` adds
 * to attempts; `attempt` also requires attempts to equal it (the worker's
 * claim on the job). Returns the row after, or null when the job was not in a
 * `from` status (someone else moved it first).
 */
export function transition(
  db: Db,
  jobId: string,
  move: { from: ScanStatus | readonly ScanStatus[]; to: ScanStatus; set?: ScanJobFields; attemptsDelta?: number; attempt?: number },
): ScanJobRow | null {
  const from = typeof move.from === "string" ? [move.from] : move.from;
  for (const f of from) {
    if (!ALLOWED_TRANSITIONS[f].includes(move.to)) throw new IllegalScanTransition(`scan job ${f} → ${move.to} is not allowed`);
  }
  const cols = Object.entries(move.set ?? {}).filter(([, v]) => v !== undefined);
  for (const [c] of cols) if (!/^[a-z_]+$/.test(c)) throw new Error(`bad column ${c}`);
  const sets = ["status = ?", ...cols.map(([c]) => `${c} = ?`)];
  const args: SQLQueryBindings[] = [move.to, ...cols.map(([, v]) => v as SQLQueryBindings)];
  if (move.attemptsDelta) {
    sets.push("attempts = attempts + ?");
    args.push(move.attemptsDelta);
  }
  let where = `id = ? AND status IN (${from.map(() => "?").join(", ")})`;
  args.push(jobId, ...from);
  if (move.attempt !== undefined) {
    where += " AND attempts = ?";
    args.push(move.attempt);
  }
  return db.query<ScanJobRow, SQLQueryBindings[]>(`UPDATE scan_jobs SET ${sets.join(", ")} WHERE ${where} RETURNING *`).get(...args);
}

export function getScanJob(db: Db, jobId: string): ScanJobRow | null {
  return db.query<ScanJobRow, [string]>("SELECT * FROM scan_jobs WHERE id = ?").get(jobId);
}

export function findScanJobByKey(db: Db, projectId: string, key: string): ScanJobRow | null {
  return db.query<ScanJobRow, [string, string]>("SELECT * FROM scan_jobs WHERE project_id = ? AND idempotency_key = ?").get(projectId, key);
}

/** A new job, PENDING_UPLOAD. */
export function insertScanJob(
  db: Db,
  job: Pick<
    ScanJobRow,
    | "id"
    | "project_id"
    | "idempotency_key"
    | "manifest"
    | "total_size_bytes"
    | "user_context"
    | "total_files"
    | "estimated_micro"
    | "reserved_micro"
    | "upload_expires_at"
    | "created_at"
  >,
): ScanJobRow {
  db.query(
    `INSERT INTO scan_jobs (id, project_id, status, idempotency_key, manifest, total_size_bytes, user_context, total_files,
       estimated_micro, reserved_micro, upload_expires_at, created_at, adjustment_message)
     VALUES (?, ?, 'PENDING_UPLOAD', ?, ?, ?, ?, ?, ?, ?, ?, ?, '')`,
  ).run(
    job.id,
    job.project_id,
    job.idempotency_key,
    job.manifest,
    job.total_size_bytes,
    job.user_context,
    job.total_files,
    job.estimated_micro,
    job.reserved_micro,
    job.upload_expires_at,
    job.created_at,
  );
  return getScanJob(db, job.id)!;
}

/** The project's newest jobs, newest first. */
export function listScanJobs(db: Db, projectId: string, limit: number): ScanJobRow[] {
  return db.query<ScanJobRow, [string, number]>("SELECT * FROM scan_jobs WHERE project_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?").all(projectId, limit);
}

/** The statuses a job can still leave (a job in one holds its upload file). */
export const LIVE_STATUSES: readonly ScanStatus[] = SCAN_STATUSES.filter((s) => ALLOWED_TRANSITIONS[s].length > 0);

export function jobsWithStatus(db: Db, statuses: readonly ScanStatus[]): ScanJobRow[] {
  return db.query<ScanJobRow, string[]>(`SELECT * FROM scan_jobs WHERE status IN (${statuses.map(() => "?").join(", ")})`).all(...statuses);
}

/** PENDING_UPLOAD jobs whose upload window closed at or before `now`. */
export function uploadWindowsClosedBy(db: Db, now: string): string[] {
  return firstColumn(db, "SELECT id FROM scan_jobs WHERE status = 'PENDING_UPLOAD' AND upload_expires_at <= ?", now);
}

/** QUEUED or PROCESSING jobs confirmed at or before `cutoff`. */
export function confirmedBefore(db: Db, cutoff: string): ScanJobRow[] {
  return db.query<ScanJobRow, [string]>("SELECT * FROM scan_jobs WHERE status IN ('QUEUED', 'PROCESSING') AND confirmed_at <= ?").all(cutoff);
}

/** The next QUEUED jobs in confirmation order, confirmed after `cutoff`. */
export function queuedAfter(db: Db, cutoff: string, limit: number): string[] {
  return firstColumn(db, "SELECT id FROM scan_jobs WHERE status = 'QUEUED' AND confirmed_at > ? ORDER BY confirmed_at, rowid LIMIT ?", cutoff, limit);
}

/** Whether the worker's attempt still holds the job (it is PROCESSING with that attempt number). */
export function stillProcessing(db: Db, jobId: string, attempt: number): boolean {
  return db.query("SELECT 1 FROM scan_jobs WHERE id = ? AND status = 'PROCESSING' AND attempts = ?").get(jobId, attempt) !== null;
}

/** Per-file progress while PROCESSING; false when the attempt lost the job. Prepared once per job. */
export function progressWriter(db: Db, jobId: string, attempt: number): (p: { completed: number; failed: number; bytes: number }) => boolean {
  const q = db.query(
    "UPDATE scan_jobs SET completed_files = ?, failed_files = ?, bytes_processed = ? WHERE id = ? AND status = 'PROCESSING' AND attempts = ?",
  );
  return (p) => q.run(p.completed, p.failed, p.bytes, jobId, attempt).changes > 0;
}

export function recordUpload(db: Db, jobId: string, at: string, bytes: number): void {
  db.query("UPDATE scan_jobs SET uploaded_at = ?, upload_bytes = ? WHERE id = ?").run(at, bytes, jobId);
}

export function markCommitted(db: Db, jobId: string, at: string): void {
  db.query("UPDATE scan_jobs SET committed_at = ? WHERE id = ?").run(at, jobId);
}

/** The project's latest COMPLETED jobs with processed bytes (the estimate's history), newest first. */
export function completedHistory(db: Db, projectId: string, limit: number): Pick<ScanJobRow, "bytes_processed" | "actual_micro" | "cost_by_extension">[] {
  return db
    .query<Pick<ScanJobRow, "bytes_processed" | "actual_micro" | "cost_by_extension">, [string, number]>(
      `SELECT bytes_processed, actual_micro, cost_by_extension FROM scan_jobs
       WHERE project_id = ? AND status = 'COMPLETED' AND bytes_processed > 0
       ORDER BY completed_at DESC, id DESC LIMIT ?`,
    )
    .all(projectId, limit);
}

/** The manifest of the project's latest COMPLETED job (what a rescan compares against). */
export function latestCompletedManifest(db: Db, projectId: string): Pick<ScanJobRow, "manifest"> | null {
  return db
    .query<{ manifest: string }, [string]>("SELECT manifest FROM scan_jobs WHERE project_id = ? AND status = 'COMPLETED' ORDER BY completed_at DESC, rowid DESC LIMIT 1")
    .get(projectId);
}

/** Jobs per status, for the statuses that have any (the /metrics gauge). */
export function countScanJobsByStatus(db: Db): Record<string, number> {
  const rows = db.query<{ status: string; n: number }, []>("SELECT status, COUNT(*) AS n FROM scan_jobs GROUP BY status").all();
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

