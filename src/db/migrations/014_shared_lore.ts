import type { Migration } from "./migration.ts";

/**
 * The shared-lore level of a mind's static prompt (src/npc/sharedLore/): how often each
 * chunk was retrieved for a mind, and the chunks the mind's static prompt carries (kept, so the
 * prompt — and its KV prefix snapshot — stays the same until lore or the mind change, also across
 * restarts). Numbered 14 after its issue: versions need only be unique and ordered.
 * No foreign key on chunk_id: re-indexing deletes and re-inserts a document's chunks.
 * Also kv_forget: the CLI's erasures a running server has still to apply to its in-memory KV state.
 */
export const sharedLore: Migration = {
  version: 14,
  name: "shared_lore",
  sql: `
CREATE TABLE mind_lore_hits (
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  chunk_id TEXT NOT NULL,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  hits INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (mind_id, chunk_id)
);
CREATE TABLE mind_shared_lore (
  mind_id TEXT PRIMARY KEY REFERENCES entity_minds(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  chunk_ids TEXT NOT NULL,
  hits_at INTEGER NOT NULL,
  computed_at TEXT NOT NULL
);
CREATE INDEX mind_shared_lore_project ON mind_shared_lore(project_id);
-- Players erased by the CLI while a server may run: the server drops their resident KV state (llm/kv/forgetRequestStore.ts).
-- A hash of project and player, never the player id; the server deletes each row once done.
CREATE TABLE kv_forget (
  hash TEXT PRIMARY KEY,
  created_at TEXT NOT NULL
);
`,
};
