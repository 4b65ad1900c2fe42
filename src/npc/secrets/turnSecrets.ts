import type { Db } from "../../db/openDatabase.ts";
import type { SessionMessage } from "../session/sessionTypes.ts";
import { kept, SECRET_STRATEGY } from "./secretFraming.ts";
import { markHistorySecrets, markSecrets, touches, type MaybeSecret } from "./secretNotes.ts";

/**
 * A turn's secrets (prepareTurn's one hook): which notes are secrets of the mind, from SQLite, and, when secrets
 * stay out of the prompt until the player's line touches them (`onTouch`), which of them this turn may carry.
 */
export function turnSecrets(db: Db, projectId: string, playerLine: string) {
  const admit = <T extends MaybeSecret & { documentName: string; text: string }>(notes: T[]): T[] =>
    SECRET_STRATEGY === "onTouch" ? notes.filter((n) => !kept(n) || touches(playerLine, n)) : notes;
  return {
    history: (h: SessionMessage[]) => markHistorySecrets(db, projectId, h),
    /** this turn's retrieved lore: marked, and admitted */
    retrieved: <T extends MaybeSecret & { documentName: string; text: string }>(notes: T[]) => admit(markSecrets(db, projectId, notes)),
    /** the shared level (marked when loaded): secrets never sit there under `onTouch` */
    shared: <T extends MaybeSecret>(notes: T[]) => (SECRET_STRATEGY === "onTouch" ? notes.filter((n) => !kept(n)) : notes),
  };
}
