import type { Db } from "../db/openDatabase.ts";

/**
 * scan_extractions: a job's candidate lore. The merging writer is
 * worker/ExtractionStore.ts; every other read and write of the table is here.
 */

export interface ExtractionPageRow {
  id: string;
  ordinal: number;
  title: string;
  tags: string;
  location: string | null;
  confidence: number;
  /** the first 400 characters of the content */
  preview: string;
  source_files: string;
  /** the review fields as JSON (null on rows written before they existed) */
  review: string | null;
}

export interface ExtractionToRefine {
  id: string;
  title: string;
  content: string;
  tags: string;
  location: string | null;
  source_files: string;
}

export interface ExtractionToCommit {
  id: string;
  title: string;
  tags: string;
  location: string | null;
  content: string;
  document_id: string | null;
}

/** A fresh attempt starts with no extractions. */
export function clearExtractions(db: Db, jobId: string): void {
  db.query("DELETE FROM scan_extractions WHERE job_id = ?").run(jobId);
}

/** Pages in (ordinal, id) order after a keyset position (no cursor stays open between pages). */
export function extractionPageReader(db: Db): (jobId: string, after: { ordinal: number; id: string }, limit: number) => ExtractionPageRow[] {
  const page = db.query<ExtractionPageRow, [string, number, number, string, number]>(
    // substr keeps the row small: only the preview leaves SQLite (firstChars then trims by code point).
    `SELECT id, ordinal, title, tags, location, confidence, substr(content, 1, 400) AS preview, source_files, review
     FROM scan_extractions WHERE job_id = ? AND (ordinal > ? OR (ordinal = ? AND id > ?))
     ORDER BY ordinal, id LIMIT ?`,
  );
  return (jobId, after, limit) => page.all(jobId, after.ordinal, after.ordinal, after.id, limit);
}

/** The job's most confident extractions first. */
export function extractionsToRefine(db: Db, jobId: string, limit: number): ExtractionToRefine[] {
  return db
    .query<ExtractionToRefine, [string, number]>(
      "SELECT id, title, content, tags, location, source_files FROM scan_extractions WHERE job_id = ? ORDER BY confidence DESC, ordinal LIMIT ?",
    )
    .all(jobId, limit);
}

export function refineExtraction(db: Db, id: string, r: { title: string; tags: string[]; location: string | null }): void {
  db.query("UPDATE scan_extractions SET title = ?, tags = ?, location = ? WHERE id = ?").run(r.title, JSON.stringify(r.tags), r.location, id);
}

/** The named extractions of the job (unknown ids are left out). */
export function extractionsToCommit(db: Db, jobId: string, ids: string[]): ExtractionToCommit[] {
  const pick = db.query<ExtractionToCommit, [string, string]>(
    "SELECT id, title, tags, location, content, document_id FROM scan_extractions WHERE id = ? AND job_id = ?",
  );
  return ids.map((id) => pick.get(id, jobId)).filter((r): r is ExtractionToCommit => r !== null);
}

export function linkExtractionToDocument(db: Db, extractionId: string, documentId: string): void {
  db.query("UPDATE scan_extractions SET document_id = ? WHERE id = ?").run(documentId, extractionId);
}

export interface ExtractionReviewRow extends Omit<ExtractionPageRow, "preview"> {
  content: string;
  document_id: string | null;
}

/** Every extraction of the job with its full text, in order (the Studio's review). */
export function extractionsForReview(db: Db, jobId: string): ExtractionReviewRow[] {
  return db
    .query<ExtractionReviewRow, [string]>(
      "SELECT id, ordinal, title, tags, location, confidence, content, source_files, document_id, review FROM scan_extractions WHERE job_id = ? ORDER BY ordinal, id",
    )
    .all(jobId);
}

/** A reviewer's edit before commit: title, tags, location and text. */
export function editExtractionRow(db: Db, id: string, e: { title: string; tags: string[]; location: string | null; content: string }): void {
  db.query("UPDATE scan_extractions SET title = ?, tags = ?, location = ?, content = ? WHERE id = ?").run(e.title, JSON.stringify(e.tags), e.location, e.content, id);
}
