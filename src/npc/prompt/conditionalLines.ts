import type { SessionMessage, TurnNotes } from "../session/sessionTypes.ts";

type NowLine = NonNullable<TurnNotes["now"]>[number];
const sameLine = (a: NowLine, b: NowLine) => a.kind === b.kind && a.text === b.text;

/**
 * A mind's conditional hints and restrictions in a conversation (docs/internals/turn-pipeline.md): never in
 * the static prompt (the same for every player), but a `[Now]` block in the turn's part, kept with the turn
 * like the scene so later prompts render it again unchanged (KV reuse). A block stays in the conversation
 * only while every line of it still applies: when a line stops applying its block leaves (as lore whose
 * condition turned false does), so no lifted rule lingers; a new block comes only when the lines in force
 * differ from the last block still in the conversation.
 */
export function keepCurrentNow(history: SessionMessage[], applying: readonly NowLine[]): SessionMessage[] {
  return history.map((m) => {
    if (!m.notes?.now || m.notes.now.every((l) => applying.some((a) => sameLine(a, l)))) return m;
    const { now: _dropped, ...rest } = m.notes;
    const { notes: _notes, ...message } = m;
    return Object.keys(rest).length ? { ...message, notes: rest } : message;
  });
}

/** The `now` note this turn adds: the lines in force when they differ from the conversation's last block. */
export function nowNote(history: readonly SessionMessage[], applying: readonly NowLine[]): NowLine[] | undefined {
  if (applying.length === 0) return undefined;
  const last = [...history].reverse().find((m) => m.notes?.now)?.notes?.now ?? [];
  const same = last.length === applying.length && applying.every((a) => last.some((l) => sameLine(a, l)));
  return same ? undefined : applying.map(({ kind, text }) => ({ kind, text }));
}

/** The conditional lines of a `[Now]` block: hints and restrictions under the static prompt's own headings. */
export function renderNow(now: readonly NowLine[]): string {
  const hints = now.filter((l) => l.kind === "hint").map((l) => `- ${l.text}`);
  const rules = now.filter((l) => l.kind === "restriction").map((l) => `- ${l.text}`);
  const lines: string[] = [];
  if (hints.length) lines.push("Things you tend to do:", ...hints);
  if (rules.length) lines.push("Rules you never break:", ...rules);
  return lines.join("\n");
}
