import { mindIdByIdOrKey } from "../lore/minds/mindStore.ts";
import { ApiError } from "../core/errors.ts";
import type { Db } from "../db/openDatabase.ts";
import type { InteractRequest } from "../npc/validateInteract.ts";

/**
 * The conversation an unprompted line said to nobody in particular joins: the mind's own, so its next
 * unprompted line knows what it last shouted. A playerId of the game's is never this (it has a character
 * no game id may start with, by the rule the route checks).
 */
export const NOBODY = "\u0000world";

/**
 * The turn of an unprompted line (POST /v1/npc/{mindId}/react, or `react` on an event): `reason` is what
 * happened, rendered as such (never as a player's words); with a player, the line joins that player's
 * conversation with the mind and the player's memories are retrieved; without one, it is said to the room.
 * The rest is an interaction: the same limits, reservation, charge and behaviour tail.
 */
export function reactRequest(mindId: string, reason: string, playerId: string | null | undefined): InteractRequest {
  if (playerId !== undefined && playerId !== null && playerId.startsWith("\u0000")) throw new ApiError(400, "Invalid request", { details: ["playerId: must not start with a NUL character"] });
  if (!playerId) return { text: reason, entityMindId: mindId, playerId: NOBODY, memory: { retrieve: false }, unprompted: true, noMemory: true };
  return { text: reason, entityMindId: mindId, playerId, memory: { retrieve: true }, unprompted: true };
}

/** A mind of the project by id or, failing that, key (an unknown one answers 404 `Entity Mind not found` in the turn). */
export function reactingMind(db: Db, projectId: string, idOrKey: string): string {
  return mindIdByIdOrKey(db, projectId, idOrKey) ?? idOrKey;
}
