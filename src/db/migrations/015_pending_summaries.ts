import type { Migration } from "./migration.ts";

/**
 * Sessions waiting for their memory summary (src/npc/memory/pendingSummaryStore.ts). The turn that reaches a
 * session's limit moves the session's messages here in the transaction that settles it, and the reply goes out
 * without waiting for the summary; the `memory-summary` job summarises each row and deletes it in the
 * transaction that stores its memories. A row outlives a crash: the next start summarises it.
 * `drafts`: the summary's memories once written, so a store cut short is replayed as it was, not summarised again.
 * `id` is the order of arrival (a player's sessions are summarised oldest first). A failed summary is retried
 * from `retry_after` on (backing off), so a backend that is down does not use up a row's attempts at once.
 */
export const pendingSummaries: Migration = {
  version: 15,
  name: "pending_summaries",
  sql: `
CREATE TABLE pending_summaries (
  id INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  player_id TEXT NOT NULL,
  mind_name TEXT NOT NULL,
  messages TEXT NOT NULL,
  drafts TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  retry_after TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX pending_summaries_player ON pending_summaries(project_id, player_id);
CREATE INDEX pending_summaries_mind ON pending_summaries(mind_id);
`,
};
