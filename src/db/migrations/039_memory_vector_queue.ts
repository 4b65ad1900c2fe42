import type { Migration } from "./migration.ts";

/**
 * The memories whose LanceDB vectors are queued: an event's memories are written to SQLite in its transaction and
 * their vectors appended to LanceDB a short window later, several writes in one commit (src/vectors/MemoryAppends.ts).
 * A row here is written in the memory's own transaction and deleted once its vector's commit is done, so a crash in
 * the window leaves the rows whose vectors it lost, and the memory-vector-repair job writes them from SQLite. The
 * memory's deletion takes its row with it (an erased memory is never repaired).
 */
export const memoryVectorQueue: Migration = {
  version: 39,
  name: "memory_vector_queue",
  sql: `
CREATE TABLE memory_vector_queue (
  memory_id TEXT PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE
);
`,
};
