import type { Migration } from "./migration.ts";

/**
 * Scanner bookkeeping beyond 001:
 * - scan_jobs: when and how much was uploaded, what processing measured (bytes,
 *   model tokens, cost per extension for the rolling-average estimate).
 * - scan_extractions: the keys the worker merges duplicates by across files
 *   (hash of the normalised text, normalised title, distinct-word count, a
 *   MinHash sketch of the word set) and the lead section's own confidence, so
 *   merging never needs the texts in memory.
 */
export const scanner: Migration = {
  version: 2,
  name: "scanner",
  sql: `
ALTER TABLE scan_jobs ADD COLUMN uploaded_at TEXT;
ALTER TABLE scan_jobs ADD COLUMN upload_bytes INTEGER;
ALTER TABLE scan_jobs ADD COLUMN bytes_processed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scan_jobs ADD COLUMN llm_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scan_jobs ADD COLUMN cost_by_extension TEXT NOT NULL DEFAULT '{}';
CREATE INDEX scan_jobs_status_confirmed ON scan_jobs(status, confirmed_at);

ALTER TABLE scan_extractions ADD COLUMN text_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE scan_extractions ADD COLUMN title_key TEXT NOT NULL DEFAULT '';
ALTER TABLE scan_extractions ADD COLUMN unique_words INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scan_extractions ADD COLUMN base_confidence REAL NOT NULL DEFAULT 0;
ALTER TABLE scan_extractions ADD COLUMN sketch BLOB;
CREATE INDEX scan_extractions_title ON scan_extractions(job_id, title_key, unique_words);
`,
};
