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
-- Gated documents (a condition or a timer) are what every turn's gate reads, found by this index.
CREATE INDEX documents_gated ON documents(project_id)
  WHERE when_condition IS NOT NULL OR sticky IS NOT NULL OR cooldown IS NOT NULL OR delay IS NOT NULL;
-- A project's gated documents change only when this version does: a server caches them by it, and any
-- writer (the server, the CLI, a future path) bumps it, since the triggers do.
CREATE TABLE document_gate_versions (
  project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  version INTEGER NOT NULL
);
CREATE TRIGGER documents_gate_insert AFTER INSERT ON documents
  WHEN new.when_condition IS NOT NULL OR new.sticky IS NOT NULL OR new.cooldown IS NOT NULL OR new.delay IS NOT NULL
BEGIN
  INSERT INTO document_gate_versions (project_id, version) VALUES (new.project_id, 1) ON CONFLICT(project_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER documents_gate_update AFTER UPDATE ON documents
  WHEN old.when_condition IS NOT new.when_condition OR old.sticky IS NOT new.sticky OR old.cooldown IS NOT new.cooldown
    OR old.delay IS NOT new.delay OR (old.name IS NOT new.name AND (new.when_condition IS NOT NULL OR new.sticky IS NOT NULL
    OR new.cooldown IS NOT NULL OR new.delay IS NOT NULL))
BEGIN
  INSERT INTO document_gate_versions (project_id, version) VALUES (new.project_id, 1) ON CONFLICT(project_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER documents_gate_delete AFTER DELETE ON documents
  WHEN old.when_condition IS NOT NULL OR old.sticky IS NOT NULL OR old.cooldown IS NOT NULL OR old.delay IS NOT NULL
BEGIN
  UPDATE document_gate_versions SET version = version + 1 WHERE project_id = old.project_id;
END;
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
