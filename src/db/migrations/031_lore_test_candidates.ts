import type { Migration } from "./migration.ts";

/**
 * Recording real conversations into candidate lore-test cases (src/loretests/recording): a project's consent
 * setting (off by default; `salt` keys the player hash, so a candidate never holds a player id and a hash from
 * one project says nothing in another), and the candidates a writer reviews. A candidate is one sampled session
 * of one mind: its turns (the player's line, the reply, the documents whose lore reached the prompt) as JSON.
 */
export const loreTestCandidates: Migration = {
  version: 31,
  name: "lore_test_candidates",
  sql: `
CREATE TABLE lore_test_recording (
  project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  enabled INTEGER NOT NULL DEFAULT 0,
  sample_rate REAL NOT NULL DEFAULT 0,
  salt TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE lore_test_candidates (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  player_hash TEXT NOT NULL,
  open INTEGER NOT NULL DEFAULT 1,
  turns TEXT NOT NULL,
  turn_count INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX lore_test_candidates_project ON lore_test_candidates(project_id, created_at);
CREATE INDEX lore_test_candidates_player ON lore_test_candidates(project_id, player_hash);
`,
};
