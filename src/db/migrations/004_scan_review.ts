import type { Migration } from "./migration.ts";

/**
 * Review metadata of scan extractions: kind, group, match reasons,
 * speakers and translation variants, as one JSON object per extraction (read
 * with the extraction, never queried by field).
 */
export const scanReview: Migration = {
  version: 4,
  name: "scan_review",
  sql: `
ALTER TABLE scan_extractions ADD COLUMN review TEXT;
`,
};
