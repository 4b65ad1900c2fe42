import type { Migration } from "./migration.ts";

/**
 * A document can be a secret of the minds that know it (docs/internals/turn-pipeline.md "Replies in character"):
 * known and used to stay consistent, never volunteered. A flag on the document, not a tag, so it never changes
 * what a mind may see (knowledge scoping stays the tags' alone) and a future `reveal` condition sits beside it.
 */
export const secretDocuments: Migration = {
  version: 21,
  name: "secret_documents",
  sql: `ALTER TABLE documents ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;`,
};
