import type { Migration } from "./migration.ts";

/**
 * Scenes (src/scenes/): several minds in one conversation. A scene belongs to one project (and optionally one
 * player); its members join and leave while it runs; its transcript holds only what was said aloud, numbered in
 * order. A member hears the lines numbered after the one current when it joined, and `heard_seq` is how far its
 * own conversation has taken them in, so each speaker's prompt gets what it heard since it last spoke.
 */
export const scenes: Migration = {
  version: 26,
  name: "scenes",
  sql: `
CREATE TABLE scenes (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  player_id TEXT,
  context TEXT,
  last_seq INTEGER NOT NULL DEFAULT 0,
  turns INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  last_active_at TEXT NOT NULL
);
CREATE INDEX scenes_project ON scenes(project_id);
CREATE INDEX scenes_idle ON scenes(last_active_at);
CREATE TABLE scene_minds (
  scene_id TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  talkativeness REAL NOT NULL,
  joined_seq INTEGER NOT NULL,
  heard_seq INTEGER NOT NULL,
  joined_at TEXT NOT NULL,
  PRIMARY KEY (scene_id, mind_id)
);
CREATE TABLE scene_lines (
  scene_id TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  mind_id TEXT,
  speaker TEXT NOT NULL,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (scene_id, seq)
);
`,
};
