import type { Migration } from "./migration.ts";

/**
 * A project's lore revision: moves whenever one of its documents is inserted, updated (an edit, a re-queue, the
 * indexer's claim, completion or failure) or deleted. What a turn derives from the whole project's lore (a mind's
 * shared-lore choice) is checked against it instead of aggregating every document of the project on every turn
 * (COUNT/SUM/MAX over 100,000 documents: ~14 ms a turn). Triggers keep it, so any writer of the file (the server,
 * the CLI) moves it. Chunks and their tags are written only together with their document's row (completion) or
 * deleted with it, so the documents' triggers cover them. Nothing on a turn writes a document row: a turn never
 * moves the revision. The delete trigger only updates: a project's deletion cascades to its documents after its
 * row here may be gone, and must not insert one back.
 * chunk_total is the number of chunks of all projects (the chunk search's one FTS table is shared by them): the
 * turn's common-word cut-off (src/retrieval/hybridSearch.ts) counted the chunks table for it, ~25 ms at 100,000.
 * The index on (project, name, id) is the document order a mind's shared lore is filled in (sharedLoreStore.ts): a
 * choice walks it and stops once it has enough chunks instead of sorting every visible chunk of the project. It is
 * partial, over exactly the documents a shared level may hold (COMPLETED, no condition or timer): only a query
 * carrying those terms can use it. A full one was preferred by plain reads of a project's documents, which then
 * fetched every row in name order (5× slower at 100,000 than in creation order).
 */
export const loreRevisions: Migration = {
  version: 34,
  name: "lore_revisions",
  sql: `
CREATE TABLE lore_revisions (
  project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  revision INTEGER NOT NULL
);
INSERT INTO lore_revisions (project_id, revision) SELECT id, 1 FROM projects;
CREATE INDEX documents_project_name ON documents(project_id, name, id)
  WHERE status = 'COMPLETED' AND when_condition IS NULL AND sticky IS NULL AND cooldown IS NULL AND delay IS NULL;
CREATE TRIGGER documents_revision_insert AFTER INSERT ON documents
BEGIN
  INSERT INTO lore_revisions (project_id, revision) VALUES (new.project_id, 1) ON CONFLICT(project_id) DO UPDATE SET revision = revision + 1;
END;
CREATE TRIGGER documents_revision_update AFTER UPDATE ON documents
BEGIN
  INSERT INTO lore_revisions (project_id, revision) VALUES (new.project_id, 1) ON CONFLICT(project_id) DO UPDATE SET revision = revision + 1;
END;
CREATE TRIGGER documents_revision_delete AFTER DELETE ON documents
BEGIN
  UPDATE lore_revisions SET revision = revision + 1 WHERE project_id = old.project_id;
END;
CREATE TABLE chunk_total (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n INTEGER NOT NULL
);
INSERT INTO chunk_total (id, n) SELECT 1, COUNT(*) FROM chunks;
CREATE TRIGGER chunks_total_insert AFTER INSERT ON chunks
BEGIN
  UPDATE chunk_total SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER chunks_total_delete AFTER DELETE ON chunks
BEGIN
  UPDATE chunk_total SET n = n - 1 WHERE id = 1;
END;
`,
};
