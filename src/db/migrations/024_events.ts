import type { Migration } from "./migration.ts";

/**
 * Events the game reports (src/events): what happened, where, who saw it. A mind's knowledge of an event is a
 * row of world_memories. Without a player it is a world memory (retrieved for every player's turn with that
 * mind); about a player (`player_id`), the text the mind recalls is that player's memory (`memory_id`, the
 * memories table), so it is retrieved, exported and erased with the player's other memories, and the row only
 * tracks who knows it (gossip's hops). The row goes with its event when the player is erased. `known_at` is when a mind knows the event (a
 * gossip hop's delay after its teller); `spread_at` marks a memory gossip has passed on, written in the
 * same transaction as the memories it created, so a restart mid-propagation neither loses nor repeats a hop.
 */
export const events: Migration = {
  version: 24,
  name: "events",
  sql: `
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  description TEXT NOT NULL,
  location_id TEXT REFERENCES locations(id) ON DELETE SET NULL,
  player_id TEXT,
  importance INTEGER NOT NULL,
  game_time TEXT,
  secret INTEGER NOT NULL DEFAULT 0,
  public INTEGER NOT NULL DEFAULT 0,
  witnesses TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX events_project ON events(project_id, created_at);
CREATE INDEX events_player ON events(project_id, player_id);
CREATE TABLE event_requests (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  idempotency_key TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (project_id, idempotency_key)
);
CREATE TABLE world_memories (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  player_id TEXT,
  memory_id TEXT,
  importance INTEGER NOT NULL,
  hop INTEGER NOT NULL,
  told_by TEXT REFERENCES entity_minds(id) ON DELETE SET NULL,
  told_by_name TEXT,
  known_at TEXT NOT NULL,
  spread_at TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (mind_id, event_id)
);
CREATE INDEX world_memories_mind ON world_memories(project_id, mind_id, known_at) WHERE player_id IS NULL;
CREATE INDEX world_memories_mind_importance ON world_memories(project_id, mind_id, importance, known_at) WHERE player_id IS NULL;
CREATE INDEX world_memories_event ON world_memories(event_id);
CREATE INDEX world_memories_unspread ON world_memories(known_at) WHERE spread_at IS NULL;
CREATE INDEX world_memories_undelivered ON world_memories(known_at) WHERE player_id IS NOT NULL AND memory_id IS NULL;
CREATE TABLE mind_gossip (
  mind_id TEXT PRIMARY KEY REFERENCES entity_minds(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  level TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX mind_gossip_project ON mind_gossip(project_id);
`,
};
