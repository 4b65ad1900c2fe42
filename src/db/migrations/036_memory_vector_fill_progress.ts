import type { Migration } from "./migration.ts";

/**
 * How far the memory vector fill has come for an embedder: the offset in LanceDB's memories table (its scan order) of
 * the next slice to copy. The fill copies a slice at a time and moves this mark after each, so a server stopped or
 * killed mid-fill resumes at the slice it was on instead of copying a million memories again. The row goes once the
 * fill ends (memory_vector_fills then records it as done). A mark that is off (rows deleted meanwhile shift the
 * offsets) only skips some rows, whose groups are copied at their first search as before.
 */
export const memoryVectorFillProgress: Migration = {
  version: 36,
  name: "memory_vector_fill_progress",
  sql: `
CREATE TABLE memory_vector_fill_progress (
  embedder TEXT PRIMARY KEY,
  next_offset INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
`,
};
