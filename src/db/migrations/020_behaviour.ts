import type { Migration } from "./migration.ts";

/**
 * The typed turn (src/behaviour/): a mind's authored behaviour (emotions, actions, trust), each player's trust
 * in each mind, and per conversation the turn count and the turn each action was last used (cooldowns).
 * The turn count is the conversation's own, not the session's: a memory checkpoint starts a fresh session but
 * must not reset a cooldown. Trust and cooldowns are the player's data: exported and erased with their memories.
 */
export const behaviour: Migration = {
  version: 20,
  name: "behaviour",
  sql: `
CREATE TABLE mind_behaviour (
  mind_id TEXT PRIMARY KEY REFERENCES entity_minds(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  behaviour TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX mind_behaviour_project ON mind_behaviour(project_id);
CREATE TABLE player_trust (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  player_id TEXT NOT NULL,
  value INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (project_id, mind_id, player_id)
);
CREATE INDEX player_trust_player ON player_trust(project_id, player_id);
CREATE TABLE action_cooldowns (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  player_id TEXT NOT NULL,
  turns INTEGER NOT NULL,
  last_used TEXT NOT NULL,
  PRIMARY KEY (project_id, mind_id, player_id)
);
CREATE INDEX action_cooldowns_player ON action_cooldowns(project_id, player_id);
`,
};
