import type { Migration } from "./migration.ts";

/**
 * Each memory's vector beside its row, so a pair's memories (one player with one mind) are ranked at the pair's first
 * turn under enhanced retrieval without a LanceDB query: LanceDB's filtered read of a group costs ~4.5 ms of CPU at
 * 1,000,000 memories whatever the filter or index, this table's read of the same rows a fraction of a millisecond
 * (BENCHMARKS.md "Big worlds: the memory group read"). LanceDB stays the store of record: a row here is a copy of a
 * LanceDB row (written after each LanceDB write, filled from LanceDB reads), and is used only while it matches the
 * memory as SQLite holds it now: the same embedder and the same text (text_hash). A copy that misses or no longer
 * matches sends the group to LanceDB, which fills it again, so no order of writes and no crash between them can make a
 * turn rank by a vector of another text. The memory's deletion takes the copy with it (the cascade).
 * The copy has no scope of its own: it is read through its memory's row (memories_player), so a pair's read holds that
 * pair's memories and no other's, exactly as SQLite scopes them.
 * memory_vector_fills records the embedders whose whole LanceDB table was copied here (the fill job's mark).
 */
export const memoryVectors: Migration = {
  version: 35,
  name: "memory_vectors",
  sql: `
CREATE TABLE memory_vectors (
  memory_id TEXT PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
  embedder TEXT NOT NULL,
  text_hash INTEGER NOT NULL,
  vector BLOB NOT NULL
);
CREATE TABLE memory_vector_fills (
  embedder TEXT PRIMARY KEY,
  filled_at TEXT NOT NULL
);
`,
};
