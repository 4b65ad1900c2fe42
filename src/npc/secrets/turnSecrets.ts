import type { Db } from "../../db/openDatabase.ts";
import { secretDocuments } from "../../lore/documents/documentStore.ts";
import type { SessionMessage } from "../session/sessionTypes.ts";
import { markHistorySecrets, markSecrets, type MaybeSecret, type RevealCheck } from "./secretNotes.ts";

/**
 * A turn's secrets (prepareTurn's one hook): which notes are secrets of the mind, from SQLite, and which of them
 * this turn's state reveals (`reveals`: the turn's conditions).
 */
export function turnSecrets(db: Db, projectId: string, reveals: RevealCheck) {
  return {
    history: (h: SessionMessage[]) => markHistorySecrets(db, projectId, h, reveals),
    /** this turn's retrieved lore, marked */
    retrieved: <T extends MaybeSecret>(notes: T[]) => markSecrets(db, projectId, notes, reveals),
    /**
     * The shared level (marked when loaded) is the same text for every player of the mind, so a secret that some
     * players' state may reveal is not there: it reaches each player through retrieval, marked for that player.
     */
    shared: <T extends MaybeSecret>(notes: T[]) => {
      const reveal = secretDocuments(db, projectId, notes.filter((n) => n.secret).map((n) => n.documentId));
      return notes.filter((n) => !n.secret || !reveal.get(n.documentId));
    },
  };
}
