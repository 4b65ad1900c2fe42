import type { Migration } from "./migration.ts";

/**
 * Lore document pages are ordered `created_at DESC, rowid DESC`. The first index on the project's documents ends
 * in `id`, which is not that order, so SQLite sorted every document of the project for each page: ~0.4 s a page
 * at 20,000 documents, more at 50,000 (bench/big-lists.ts). An index ending in created_at has rowid as its last
 * key, so read backwards it is the page order itself and a page is a walk of the index.
 */
export const documentPages: Migration = {
  version: 33,
  name: "document_pages",
  sql: `CREATE INDEX documents_project_created_rowid ON documents(project_id, created_at);`,
};
