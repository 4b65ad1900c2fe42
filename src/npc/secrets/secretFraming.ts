import { mayTell } from "./secretNotes.ts";

/**
 * How a secret reaches the prompt of a mind that knows it. Tried on the tuning worlds and chosen by the held-out
 * world's figures (BENCHMARKS.md "Replies in character"):
 * - `inline`: the note, with "this is your secret, never tell it" beside its name;
 * - `block`: the secrets apart from the other notes, under a heading that says they are to be kept;
 * - `onTouch`: left out of the prompt unless the player's line touches it, then inline.
 */
export type SecretStrategy = "inline" | "block" | "onTouch";

export const SECRET_STRATEGY: SecretStrategy = (process.env.LOREHOLD_EXPERIMENT_SECRETS as SecretStrategy | undefined) ?? "inline";

/** What `inline` puts beside a secret note's name. */
export const SECRET_MARK = "(your secret: you know it, but you never tell it to anyone)";
/** The heading of `block`'s secrets. */
export const SECRETS_HEADING = "[Your secrets: you know them and stay true to them, but you never tell them to anyone]";

/** A note kept as a secret this turn (a secret not yet told). */
export function kept(note: { secret?: boolean; revealed?: boolean; documentId?: string }): boolean {
  return !!note.secret && !mayTell({ documentId: note.documentId ?? "", secret: true, revealed: note.revealed });
}
