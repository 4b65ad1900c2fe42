import type { Migration } from "./migration.ts";

/**
 * Full-text (BM25) index over the lore chunks in SQLite: the text half of
 * the runtime's hybrid retrieval (the vector half is in memory, from
 * LanceDB). Also the memory tombstones the erase path records.
 */
export const chunkSearch: Migration = {
  version: 3,
  name: "chunk_search",
  sql: `
CREATE VIRTUAL TABLE chunks_fts USING fts5(content, content='chunks', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER chunks_fts_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER chunks_fts_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER chunks_fts_au AFTER UPDATE OF content ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
  INSERT INTO chunks_fts(rowid, content) VALUES (new.rowid, new.content);
END;
INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
-- Per-term document frequencies, to leave out of a query the words that nearly every chunk holds.
CREATE VIRTUAL TABLE chunks_fts_terms USING fts5vocab(chunks_fts, 'row');
CREATE TABLE IF NOT EXISTS memory_tombstones (memory_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, erased_at TEXT NOT NULL);
`,
};
