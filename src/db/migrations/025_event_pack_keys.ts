import type { Migration } from "./migration.ts";

/**
 * An event's key in a lore pack: a re-import of the same pack finds the event it wrote, so an unchanged pack
 * writes nothing and a changed one updates in place. Events the game reported have none (their pack key is
 * their id); only events a pack wrote carry one. `updated_at` is when a pack last changed the event or who
 * knows it (null: never), so the Studio's dry run can tell an updated event from an unchanged one.
 * `text_key` is the description as the memory store compares texts (case, punctuation, spacing aside), and
 * events_same_text finds the recent reports of one happening by it (a repeat merges into the memory of the
 * first, src/events); events recorded before this have none and are never taken for a repeat.
 */
export const eventPackKeys: Migration = {
  version: 25,
  name: "event_pack_keys",
  sql: `
ALTER TABLE events ADD COLUMN pack_key TEXT;
ALTER TABLE events ADD COLUMN updated_at TEXT;
ALTER TABLE events ADD COLUMN text_key TEXT;
CREATE INDEX events_same_text ON events(project_id, type, text_key, created_at) WHERE text_key IS NOT NULL;
CREATE UNIQUE INDEX events_pack_key ON events(project_id, pack_key) WHERE pack_key IS NOT NULL;
`,
};
