import type { Migration } from "./migration.ts";

/**
 * A world memory carries its event's content words (`words`: the keywords a turn's ranking matches the player's
 * words against, space-separated with a space at each end), and the two indexes a turn reads its mind's candidates
 * from cover everything the ranking needs (id, importance, known_at, words). A turn's ~270 candidates were each a
 * row lookup and an event lookup on pages a big world's cache rarely holds; now they are read from a few
 * consecutive index pages, and only the kept three are looked up (src/events/worldMemoryStore.ts).
 * `words` is NULL until filled: for rows written before this migration the world-memory-words job fills them in
 * slices (world_memories_unworded lists the rows left, so it resumes where it stopped), and the ranking reads a
 * NULL row's text from its event as before. An event whose text changes sets its memories' words back to NULL
 * (the trigger), so no turn ranks an event by words of a text it no longer has.
 */
export const worldMemoryWords: Migration = {
  version: 37,
  name: "world_memory_words",
  sql: `
ALTER TABLE world_memories ADD COLUMN words TEXT;
DROP INDEX world_memories_mind;
DROP INDEX world_memories_mind_importance;
CREATE INDEX world_memories_mind ON world_memories(project_id, mind_id, known_at, importance, id, words) WHERE player_id IS NULL;
CREATE INDEX world_memories_mind_importance ON world_memories(project_id, mind_id, importance, known_at, id, words) WHERE player_id IS NULL;
CREATE INDEX world_memories_unworded ON world_memories(event_id) WHERE words IS NULL AND player_id IS NULL;
CREATE TRIGGER world_memories_words_stale AFTER UPDATE OF type, description ON events
BEGIN
  UPDATE world_memories SET words = NULL WHERE event_id = NEW.id AND words IS NOT NULL;
END;
`,
};
