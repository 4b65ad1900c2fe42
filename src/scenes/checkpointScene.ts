import type { InteractDeps } from "../core/context.ts";
import { nowIso } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { readSettings } from "../projects/settings.ts";
import { deleteSession, loadSession, saveSession } from "../npc/session/sessionStore.ts";
import { addPendingSummary } from "../npc/memory/pendingSummaryStore.ts";
import { MEMORY_SUMMARY_JOB } from "../npc/memory/summarisePending.ts";
import { mindProfileRow } from "../lore/minds/mindStore.ts";

/** The conversation key of a scene's talk when no player is present: never a real player's id (those are ≤ 255 characters, this one is unique to the scene). */
export function scenePlayerKey(scene: { id: string; player_id: string | null }): string {
  return scene.player_id ?? `scene:${scene.id}`;
}

/**
 * A mind's memory of the scene when it ends or the mind walks out: with a player present, its conversation with
 * that player (the scene's lines it heard and said, as every other turn) is queued for the memory summary and a
 * fresh session starts, as at an interaction's session limit. With no player the talk is not anyone's to remember:
 * the conversation is dropped. Returns whether a summary was queued.
 */
export function checkpointSceneMind(deps: InteractDeps, projectId: string, scene: { id: string; player_id: string | null }, mindId: string): boolean {
  const key = { projectId, mindId, playerId: scenePlayerKey(scene) };
  if (!scene.player_id) {
    deleteSession(deps.db, key);
    return false;
  }
  const mind = mindProfileRow(deps.db, projectId, mindId);
  if (!mind || !readSettings(deps, projectId).longTermMemoryEnabled) return false;
  const queued = writeTx(deps.db, () => {
    const session = loadSession(deps, projectId, mindId, key.playerId);
    if (!session.messages.length) return false;
    addPendingSummary(deps.db, { ...key, mindName: mind.entity_name, messages: session.messages, createdAt: nowIso(deps) });
    saveSession(deps, key, { messages: [], tokenCount: 0 });
    return true;
  });
  if (queued) deps.scheduler?.kick(MEMORY_SUMMARY_JOB);
  return queued;
}
