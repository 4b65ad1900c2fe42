import type { Migration } from "./migration.ts";

/**
 * The indexer claims the oldest PENDING document (`status = 'PENDING' ORDER BY updated_at, rowid`). With an index on
 * status alone SQLite sorted every pending row, content included, at each claim: a bulk import of 5,000 documents
 * sorted ~5,000 rows per document indexed, so indexing slowed as the backlog grew. The index's own order (rowid is
 * its last key) answers the ORDER BY.
 */
export const pendingDocuments: Migration = {
  version: 28,
  name: "pending_documents",
  sql: `CREATE INDEX documents_status_updated ON documents(status, updated_at);`,
};
