import type { Db } from "../db/openDatabase.ts";
import type { ExtractionReviewRow } from "../scanner/scanExtractionStore.ts";

/**
 * The Studio's read model: counts, time series and cross-table views over a
 * project's rows, read-only (like lore/documents/documentListStore.ts, a
 * query-shaped reader beside the tables' own stores, which keep every write).
 */

/** Tables a project's rows are counted or stamped in (names are never taken from input). */
export type ProjectTable = "entity_minds" | "documents" | "chunks" | "tags" | "locations" | "relationships" | "relationship_types" | "memories" | "scan_jobs" | "events";

export function countProjectRows(db: Db, table: ProjectTable, projectId: string): number {
  return db.query<{ n: number }, [string]>(`SELECT COUNT(*) AS n FROM ${table} WHERE project_id = ?`).get(projectId)?.n ?? 0;
}

export function documentStatusCounts(db: Db, projectId: string): Record<string, number> {
  return Object.fromEntries(
    db
      .query<{ status: string; n: number }, [string]>("SELECT status, COUNT(*) AS n FROM documents WHERE project_id = ? GROUP BY status")
      .all(projectId)
      .map((r) => [r.status, r.n]),
  );
}

/** Distinct players with a session or a memory in the project. */
export function playerCount(db: Db, projectId: string): number {
  return (
    db
      .query<{ n: number }, [string, string]>(
        "SELECT COUNT(*) AS n FROM (SELECT player_id FROM sessions WHERE project_id = ? UNION SELECT player_id FROM memories WHERE project_id = ?)",
      )
      .get(projectId, projectId)?.n ?? 0
  );
}

/** When each settled interaction of the project since `sinceIso` was reserved. */
export function settledInteractionTimes(db: Db, projectId: string, sinceIso: string): string[] {
  return db
    .query<{ created_at: string }, [string, string]>(
      "SELECT created_at FROM credit_reservations WHERE project_id = ? AND purpose = 'interaction' AND status = 'settled' AND created_at >= ?",
    )
    .all(projectId, sinceIso)
    .map((r) => r.created_at);
}

/** The project's interaction spends (negative amounts) since `sinceIso`. */
export function interactionSpends(db: Db, projectId: string, sinceIso: string): { created_at: string; amount_micro: number }[] {
  return db
    .query<{ created_at: string; amount_micro: number }, [string, string]>(
      "SELECT created_at, amount_micro FROM credit_ledger WHERE project_id = ? AND kind = 'interaction' AND created_at >= ?",
    )
    .all(projectId, sinceIso);
}

export interface LedgerMovementRow {
  id: number;
  bucket: string;
  kind: string;
  amount_micro: number;
  period: string;
  note: string | null;
  created_at: string;
  project_id: string | null;
}

/** The newest ledger rows of the project and of its team as a whole (grants, plan changes). */
export function ledgerMovementRows(db: Db, teamId: string, projectId: string, limit: number): LedgerMovementRow[] {
  return db
    .query<LedgerMovementRow, [string, string, number]>(
      `SELECT id, bucket, kind, amount_micro, period, note, created_at, project_id FROM credit_ledger
       WHERE team_id = ? AND (project_id = ? OR project_id IS NULL) ORDER BY id DESC LIMIT ?`,
    )
    .all(teamId, projectId, limit);
}

/** Each document of the project with each of its tag names (a row per tag; null for an untagged document). */
export function documentTagRows(db: Db, projectId: string): { id: string; name: string; status: string; tag: string | null }[] {
  return db
    .query<{ id: string; name: string; status: string; tag: string | null }, [string]>(
      `SELECT d.id, d.name, d.status, t.name AS tag FROM documents d
       LEFT JOIN document_tags dt ON dt.document_id = d.id LEFT JOIN tags t ON t.id = dt.tag_id
       WHERE d.project_id = ? ORDER BY d.name COLLATE NOCASE, d.id, t.name`,
    )
    .all(projectId);
}

export function tagNames(db: Db, projectId: string): string[] {
  return db
    .query<{ name: string }, [string]>("SELECT name FROM tags WHERE project_id = ? ORDER BY name COLLATE NOCASE")
    .all(projectId)
    .map((t) => t.name);
}

export function documentIndexRow(db: Db, projectId: string, documentId: string) {
  return db
    .query<{ status: string; error_message: string | null; processed_at: string | null; chunk_count: number }, [string, string]>(
      "SELECT status, error_message, processed_at, chunk_count FROM documents WHERE id = ? AND project_id = ?",
    )
    .get(documentId, projectId);
}

/** id → updated_at of every row of the project in `table` (what a pack dry run compares). */
export function updatedStamps(db: Db, table: ProjectTable, projectId: string): Map<string, string> {
  return new Map(db.query<{ id: string; updated_at: string }, [string]>(`SELECT id, updated_at FROM ${table} WHERE project_id = ?`).all(projectId).map((r) => [r.id, r.updated_at]));
}

export interface ExtractionGroupRow {
  id: string;
  title: string;
  tags: string;
  location: string | null;
  confidence: number;
  source_files: string;
  review: string | null;
  /** the committed document, when it still exists */
  document_id: string | null;
}

/**
 * A scan job's extractions without their text, with the document each was committed to when that
 * document still exists (a deleted one is made again by the next commit): what per-group review counts.
 */
export function extractionGroupRows(db: Db, projectId: string, jobId: string): ExtractionGroupRow[] {
  return db
    .query<ExtractionGroupRow, [string, string]>(
      `SELECT e.id, e.title, e.tags, e.location, e.confidence, e.source_files, e.review, d.id AS document_id
       FROM scan_extractions e LEFT JOIN documents d ON d.id = e.document_id AND d.project_id = ?
       WHERE e.job_id = ? ORDER BY e.ordinal, e.id`,
    )
    .all(projectId, jobId);
}

/**
 * One review group's extractions with their text (opening a group in the Studio): the group is in
 * the review JSON, so only that group's rows are decoded. Rows from before the scanner's v2 are
 * their own group, named by their id.
 */
export function extractionsOfGroup(db: Db, jobId: string, group: string): ExtractionReviewRow[] {
  return db
    .query<ExtractionReviewRow, [string, string, string]>(
      `SELECT id, ordinal, title, tags, location, confidence, content, source_files, document_id, review FROM scan_extractions
       WHERE job_id = ? AND (json_extract(review, '$.group') = ? OR (review IS NULL AND id = ?)) ORDER BY ordinal, id`,
    )
    .all(jobId, group, group);
}
