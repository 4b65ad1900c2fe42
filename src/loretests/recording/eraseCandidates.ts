import type { Db } from "../../db/openDatabase.ts";
import { deletePlayerCandidates, recordingRow } from "./candidateStore.ts";
import { playerHash } from "./playerHash.ts";

/** Erasing a player removes the candidates recorded from their conversations (found by their hash); returns how many. */
export function erasePlayerCandidates(db: Db, projectId: string, playerId: string): number {
  const rec = recordingRow(db, projectId);
  return rec ? deletePlayerCandidates(db, projectId, playerHash(rec.salt, playerId)) : 0;
}
