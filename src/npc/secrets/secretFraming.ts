import { mayTell } from "./secretNotes.ts";
import { SECRET_MARK } from "./secretMark.ts";

/**
 * How a secret reaches the prompt of a mind that knows it: the note among the others, with "this is your secret,
 * never tell it" beside its name. Kept over a separate block of secrets and over leaving a secret out until the
 * player's line touches it: the tuning worlds did not separate them (BENCHMARKS.md "Replies in character"), and
 * this one keeps one [Lore] block and a turn's prompt the same whatever the player's words. The smallest chat
 * models read their prompt without them (smallestChatModels.ts).
 */
export { SECRET_MARK };

/** A note kept as a secret this turn (a secret not yet told). */
export function kept(note: { secret?: boolean; revealed?: boolean; documentId?: string }): boolean {
  return !!note.secret && !mayTell({ documentId: note.documentId ?? "", secret: true, revealed: note.revealed });
}
