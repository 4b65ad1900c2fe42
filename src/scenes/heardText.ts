import type { SceneLineRow } from "./sceneStore.ts";

/** The most lines a speaker is given at once (the newest): a quiet member's backlog stays bounded. */
export const HEARD_LINES = 8;
/** characters of one heard line (a long line is cut, as a listener would lose the thread) */
const LINE_CHARS = 400;
export const PLAYER_LABEL = "The player";

export interface Heard {
  /** the turn's line: the last thing said, to which the speaker answers */
  text: string;
  /** what was said before it since the speaker last spoke, oldest first (the turn's scene block) */
  earlier: string[];
}

/**
 * What a speaker heard since it last spoke: only what was said aloud in the scene. The last line is the turn's
 * line: the player's words as they are (the speaker answers as in a one-to-one talk, and retrieval searches with
 * them), another mind's as `Name says: "…"`. What was said before it goes into the turn's scene block as
 * `Name said: "…"`. Measured on Qwen2.5-0.5B: a turn's line made of several quoted lines was answered by repeating
 * one of them, labels and all; the last line alone is answered.
 */
export function heardLines(lines: SceneLineRow[], names: Map<string, string>, omitted: number, others: string[]): Heard {
  if (!lines.length) {
    return { text: others.length ? `(Nobody has spoken yet. You start talking, to ${others.join(", ")}.)` : "(Nobody else is here. You think aloud.)", earlier: [] };
  }
  const who = (l: SceneLineRow) => (l.mind_id ? (names.get(l.mind_id) ?? l.speaker) : PLAYER_LABEL);
  const last = lines[lines.length - 1];
  const earlier = lines.slice(0, -1).map((l) => `${who(l)} said: "${cut(l.text)}"`);
  if (omitted > 0) earlier.unshift(`(${omitted} earlier ${omitted === 1 ? "line" : "lines"} not followed)`);
  return { text: last.mind_id ? `${who(last)} says: "${cut(last.text)}"` : cut(last.text), earlier };
}

function cut(text: string): string {
  const t = text.trim();
  return t.length > LINE_CHARS ? `${t.slice(0, LINE_CHARS)}…` : t;
}
