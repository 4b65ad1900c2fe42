import type { Db } from "../db/openDatabase.ts";
import { normaliseMemoryText } from "../npc/memory/memoryText.ts";
import { raiseWorldMemoryImportance, recentWorldMemoriesOfType } from "./worldMemoryStore.ts";

/**
 * How close in time two reports of the same thing must be to be one memory. A game often reports one happening
 * several times (each guard's trigger, a retry without an Idempotency-Key); a mind remembers it once. Later the
 * same words are news again (the bell rings every evening).
 */
export const EVENT_MERGE_WINDOW_MS = 10 * 60_000;

/**
 * The mind's world memory an event repeats, when there is one: an event of the same type whose description is
 * the same text (compared as the memory store compares drafts: case, punctuation and spacing aside) that the
 * mind learned within EVENT_MERGE_WINDOW_MS. The repeat merges into it: its importance is the higher of the
 * two, and no second memory is written. Returns true when merged. Inside the caller's write transaction.
 */
export function mergeIntoRecent(db: Db, projectId: string, mindId: string, e: { type: string; description: string; importance: number; at: string }): boolean {
  const since = new Date(Date.parse(e.at) - EVENT_MERGE_WINDOW_MS).toISOString();
  const text = normaliseMemoryText(e.description);
  const same = recentWorldMemoriesOfType(db, projectId, mindId, e.type, since).find((k) => normaliseMemoryText(k.description) === text);
  if (!same) return false;
  if (e.importance > same.importance) raiseWorldMemoryImportance(db, same.id, e.importance);
  return true;
}
