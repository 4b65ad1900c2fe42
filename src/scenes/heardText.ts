import type { SceneLineRow } from "./sceneStore.ts";

/** The most lines a speaker is given at once (the newest): a quiet member's backlog stays bounded. */
export const HEARD_LINES = 8;
/** characters of one heard line (a long player line is cut, as a listener would lose the thread) */
const LINE_CHARS = 600;
export const PLAYER_LABEL = "The player";

/**
 * What a speaker heard since it last spoke, as its turn's line: only what was said aloud in the scene. The
 * player's line alone is passed as it is (the speaker answers the player as in a one-to-one talk); several
 * lines become `Name says: "…"`, one a line. Nothing heard yet: a stage note that the speaker opens the talk.
 */
export function heardText(lines: SceneLineRow[], names: Map<string, string>, omitted: number, others: string[]): string {
  if (lines.length === 1 && lines[0].mind_id === null && omitted === 0) return cut(lines[0].text);
  if (!lines.length) {
    return others.length ? `(Nobody has spoken yet. You start talking, to ${others.join(", ")}.)` : "(Nobody else is here. You think aloud.)";
  }
  const out = omitted > 0 ? [`(${omitted} earlier ${omitted === 1 ? "line" : "lines"} you did not follow.)`] : [];
  for (const l of lines) out.push(`${l.mind_id ? (names.get(l.mind_id) ?? l.speaker) : PLAYER_LABEL} says: "${cut(l.text)}"`);
  return out.join("\n");
}

function cut(text: string): string {
  const t = text.trim();
  return t.length > LINE_CHARS ? `${t.slice(0, LINE_CHARS)}…` : t;
}
