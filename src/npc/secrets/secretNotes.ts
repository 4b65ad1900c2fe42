import type { Db } from "../../db/openDatabase.ts";
import { secretDocuments } from "../../lore/documents/documentStore.ts";
import type { SessionMessage } from "../session/sessionTypes.ts";

/** A lore note that may be a secret of the minds that know it (documents' `secret: true`). */
export interface MaybeSecret {
  documentId: string;
  secret?: boolean;
  /** a secret whose `reveal` condition holds this turn: told like any other note (the preview shows it) */
  revealed?: boolean;
}

/** Whether a secret's reveal condition holds this turn (the turn's condition scope, src/conditions). */
export type RevealCheck = (condition: string) => boolean;

/**
 * The notes with `secret` as SQLite says now (an author may mark or unmark a document, or change its reveal
 * condition, at any time), and `revealed` where the secret's reveal condition holds this turn.
 */
export function markSecrets<T extends MaybeSecret>(db: Db, projectId: string, notes: T[], reveals: RevealCheck): T[] {
  if (notes.length === 0) return notes;
  const secret = secretDocuments(db, projectId, notes.map((n) => n.documentId));
  return notes.map((n) => marked(n, secret, reveals));
}

function marked<T extends MaybeSecret>(n: T, secret: Map<string, string | null>, reveals: RevealCheck): T {
  const { secret: _s, revealed: _r, ...rest } = n;
  if (!secret.has(n.documentId)) return rest as T;
  const reveal = secret.get(n.documentId);
  return { ...rest, secret: true, ...(reveal && reveals(reveal) ? { revealed: true } : {}) } as T;
}

/** The same for the lore notes of a conversation's earlier turns (their reveal read with this turn's scope). */
export function markHistorySecrets(db: Db, projectId: string, history: SessionMessage[], reveals: RevealCheck): SessionMessage[] {
  const all = history.flatMap((m) => m.notes?.lore ?? []);
  if (all.length === 0) return history;
  const secret = secretDocuments(db, projectId, all.map((n) => n.documentId));
  return history.map((m) => (m.notes?.lore ? { ...m, notes: { ...m.notes, lore: m.notes.lore.map((n) => marked(n, secret, reveals)) } } : m));
}

/**
 * Whether a secret may be told this turn: its document's `reveal` condition holds for this turn's world and player
 * state (markSecrets). The turn's render asks this per note: a told secret is rendered as any other note, and the
 * reply guard does not keep it.
 */
export function mayTell(note: MaybeSecret): boolean {
  return !!note.revealed;
}
