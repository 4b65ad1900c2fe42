import type { Db } from "../db/openDatabase.ts";
import { eventTextKey, sameTextEvents } from "./eventStore.ts";
import { raiseWorldMemoryImportance, worldMemoryOf } from "./worldMemoryStore.ts";

/**
 * How close in time two reports of the same thing must be to be one memory. A game often reports one happening
 * several times (each guard's trigger, a retry without an Idempotency-Key); a mind remembers it once. Later the
 * same words are news again (the bell rings every evening).
 */
export const EVENT_MERGE_WINDOW_MS = 10 * 60_000;

/** Reports of one happening looked at (a mind knows it through the first it finds). */
const CANDIDATES = 50;

/**
 * The world events an event repeats: the same type, the same description (compared as the memory store compares
 * drafts: case, punctuation and spacing aside), recorded within EVENT_MERGE_WINDOW_MS before `at`, newest first.
 * Read once per event, whatever its number of witnesses.
 */
export function repeatedEvents(db: Db, projectId: string, e: { type: string; description: string; at: string }): string[] {
  return sameHappening(db, projectId, e, 0);
}

/**
 * The events that report the same happening as `e` (itself among them once recorded): the same type and text
 * within EVENT_MERGE_WINDOW_MS before it, and with `after`, that long after it too. Gossip tells nobody a
 * happening they already know under another report.
 */
export function sameHappening(db: Db, projectId: string, e: { type: string; description: string; at: string }, after = EVENT_MERGE_WINDOW_MS): string[] {
  const at = Date.parse(e.at);
  // one indexed read: the text key is stored with each event, so no candidate's text is compared here
  return sameTextEvents(db, projectId, e.type, eventTextKey(e.description), new Date(at - EVENT_MERGE_WINDOW_MS).toISOString(), new Date(at + after).toISOString(), CANDIDATES);
}

/**
 * A witness of a repeat who knows one of the events it repeats keeps that one memory: its importance becomes the
 * higher of the two and no second memory is written. True when merged. Inside the caller's write transaction.
 */
export function mergeRepeat(db: Db, mindId: string, repeated: string[], importance: number): boolean {
  for (const eventId of repeated) {
    const known = worldMemoryOf(db, mindId, eventId);
    if (!known || known.player_id !== null) continue;
    if (importance > known.importance) raiseWorldMemoryImportance(db, known.id, importance);
    return true;
  }
  return false;
}
