import type { Db } from "../../db/openDatabase.ts";
import { secretDocumentIds } from "../../lore/documents/documentStore.ts";
import type { SessionMessage } from "../session/sessionTypes.ts";
import { words } from "../replies/wordOverlap.ts";

/** A lore note that may be a secret of the minds that know it (documents' `secret: true`). */
export interface MaybeSecret {
  documentId: string;
  secret?: boolean;
}

/** The notes with `secret` as SQLite says now (an author may mark or unmark a document at any time). */
export function markSecrets<T extends MaybeSecret>(db: Db, projectId: string, notes: T[]): T[] {
  if (notes.length === 0) return notes;
  const secret = secretDocumentIds(db, projectId, notes.map((n) => n.documentId));
  return notes.map((n) => {
    if (secret.has(n.documentId)) return n.secret ? n : { ...n, secret: true };
    if (!n.secret) return n;
    const { secret: _s, ...rest } = n;
    return rest as T;
  });
}

/** The same for the lore notes of a conversation's earlier turns. */
export function markHistorySecrets(db: Db, projectId: string, history: SessionMessage[]): SessionMessage[] {
  const all = history.flatMap((m) => m.notes?.lore ?? []);
  if (all.length === 0) return history;
  const secret = secretDocumentIds(db, projectId, all.map((n) => n.documentId));
  return history.map((m) =>
    m.notes?.lore ? { ...m, notes: { ...m.notes, lore: m.notes.lore.map(({ secret: _s, ...n }) => (secret.has(n.documentId) ? { ...n, secret: true } : n)) } } : m,
  );
}

/**
 * Whether a secret may be told this turn. A secret is kept until a `reveal` condition on world and player state
 * (docs/internals/turn-pipeline.md, the condition scope) says otherwise; none is authored yet, so always false.
 * The turn's render asks this per note: a told secret is rendered as any other note.
 */
export function mayTell(_note: MaybeSecret): boolean {
  return false;
}

const STOP = new Set(["what", "when", "where", "which", "who", "whom", "whose", "why", "how", "that", "this", "these", "those", "there", "their", "they", "them", "your", "yours", "have", "with", "from", "about", "does", "were", "will", "would", "could", "should", "into", "some", "tell", "know", "just", "than", "then", "been", "being", "here", "ever", "very", "much", "many", "more", "most", "also", "only", "anything", "something"]);

/** The player's line shares at least two content words with the secret (its name or text). */
export function touches(playerLine: string, note: { documentName: string; text: string }): boolean {
  const content = (s: string) => new Set(words(s).filter((w) => w.length >= 4 && !STOP.has(w)));
  const line = content(playerLine);
  const secret = content(`${note.documentName} ${note.text}`);
  let shared = 0;
  for (const w of line) if (secret.has(w)) shared++;
  return shared >= 2;
}
