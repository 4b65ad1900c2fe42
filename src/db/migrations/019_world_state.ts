import type { Migration } from "./migration.ts";

/**
 * World state and conditions (src/state, src/conditions; docs/internals/turn-pipeline.md "The condition
 * scope"): values the game sets for the world of a project and for each player, the project's
 * declarations (typed keys, defaults, exclusive groups), a document's condition and timers, and a
 * mind's conditional knowledge. Conditional knowledge has its own table, apart from
 * mind_knowledge_tags, so every existing reader of that table keeps meaning "always known".
 */
export const worldState: Migration = {
  version: 19,
  name: "world_state",
  sql: `
CREATE TABLE world_state (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (project_id, key)
) WITHOUT ROWID;
CREATE TABLE player_state (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  player_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (project_id, player_id, key)
) WITHOUT ROWID;
CREATE TABLE state_schema (
  project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  keys TEXT NOT NULL DEFAULT '{}',
  exclusive_groups TEXT NOT NULL DEFAULT '[]',
  updated_at TEXT NOT NULL
);
ALTER TABLE documents ADD COLUMN when_condition TEXT;
ALTER TABLE documents ADD COLUMN sticky INTEGER;
ALTER TABLE documents ADD COLUMN cooldown INTEGER;
ALTER TABLE documents ADD COLUMN delay INTEGER;
-- Gated documents (a condition or a timer) are read every turn: few rows, found by this index.
CREATE INDEX documents_gated ON documents(project_id)
  WHERE when_condition IS NOT NULL OR sticky IS NOT NULL OR cooldown IS NOT NULL OR delay IS NOT NULL;
CREATE TABLE mind_conditional_knowledge (
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  when_condition TEXT NOT NULL,
  PRIMARY KEY (mind_id, position)
);
CREATE INDEX mind_conditional_knowledge_tag ON mind_conditional_knowledge(tag_id);
`,
};
