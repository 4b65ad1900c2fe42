import type { SceneContext } from "../validateInteract.ts";
import type { SessionMessage, TurnNotes } from "../session/sessionTypes.ts";
import { renderNow } from "./conditionalLines.ts";
import { renderActionResults, renderReplyWithTail } from "../../behaviour/behaviourPrompt.ts";
import { kept, SECRET_MARK } from "../secrets/secretFraming.ts";
import { notesRead, type KeptSecrets } from "../secrets/smallestChatModels.ts";

const LABELS: Record<string, string> = {
  location: "Location",
  locationDetails: "Location details",
  timeOfDay: "Time of day",
  weather: "Weather",
  atmosphere: "Atmosphere",
  situation: "Situation",
  npcMood: "Your mood",
  npcActivity: "You are",
  playerAppearance: "The player looks",
  playerReputation: "The player's reputation",
  custom: "Note",
  playerVisibleItems: "The player carries",
  nearbyCharacters: "Nearby characters",
  nearbyObjects: "Nearby objects",
  recentEvents: "Recent events",
};

/** The scene block of a turn, in a fixed field order so the same context renders the same text. */
export function renderScene(ctx: SceneContext | undefined): string | undefined {
  if (!ctx) return undefined;
  const lines: string[] = [];
  for (const [key, label] of Object.entries(LABELS)) {
    const v = (ctx as Record<string, string | string[] | undefined>)[key];
    if (v === undefined || (Array.isArray(v) && v.length === 0) || v === "") continue;
    lines.push(`${label}: ${Array.isArray(v) ? v.join(", ") : v}`);
  }
  return lines.length ? lines.join("\n") : undefined;
}

/**
 * The lore notes of a turn: one paragraph each, `About <document>: <text>`, the best match last (next to the
 * player's line, where a small model attends most). Measured on the real fixture models (bench/quality.ts,
 * BENCHMARKS.md "Quality on real models"): the old layout, `(Document) text` best first, made small models open
 * a reply with an invented parenthesised heading of their own (`(The Rumble in the Night) …`: 6 of 24 replies
 * on SmolLM2-135M and on Gemma 3 270M); the name as the start of a sentence keeps what it tells without that.
 */
export function renderLore(lore: NonNullable<TurnNotes["lore"]>): string {
  return [...lore].reverse().map(loreNote).join("\n\n");
}

/** One lore note as a paragraph (also the form of a mind's shared lore, src/npc/sharedLore); a kept secret says so. */
export function loreNote(l: { documentName: string; text: string; secret?: boolean; documentId?: string }): string {
  const mark = kept(l) ? ` ${SECRET_MARK}` : "";
  return `About ${l.documentName}${mark}: ${l.text.trim()}`;
}

/** The notes' block, `[Lore]` (one: a kept secret is marked beside its name, among the other notes). */
export function loreBlocks(lore: NonNullable<TurnNotes["lore"]>, order: "best last" | "as given" = "best last"): string[] {
  if (lore.length === 0) return [];
  return [`${LORE_HEADING}\n${order === "best last" ? renderLore(lore) : lore.map(loreNote).join("\n\n")}`];
}

/**
 * A user turn as the model sees it: the notes the server added, then what the player said. With `secrets` "left
 * out" (smallestChatModels.ts) the turn reads as if its kept secrets' notes were never there.
 */
export function renderUserTurn(content: string, given: TurnNotes | undefined, secrets: KeptSecrets = "read"): string {
  const notes = given?.lore && secrets === "left out" ? { ...given, lore: notesRead(given.lore, secrets) } : given;
  if (!notes || (!notes.lore?.length && !notes.memories?.length && !notes.scene && !notes.now?.length && !notes.behaviour && !notes.actionResults?.length && !notes.events?.length && !notes.unprompted)) return content;
  const parts: string[] = [];
  if (notes.scene) parts.push(`[Scene]\n${notes.scene}`);
  if (notes.lore?.length) parts.push(...loreBlocks(notes.lore));
  if (notes.memories?.length) parts.push(`[You remember about this player]\n${notes.memories.map((m) => `- ${m}`).join("\n")}`);
  if (notes.events?.length) parts.push(`[What you know has happened]\n${notes.events.map((e) => `- ${e.text}`).join("\n")}`);
  if (notes.actionResults?.length) parts.push(`[Your earlier actions]\n${renderActionResults(notes.actionResults)}`);
  // one [Now] section: the conditional lines in force (kept with the turn they came in), then the behaviour note
  const now = [notes.now?.length ? renderNow(notes.now) : "", notes.behaviour ?? ""].filter(Boolean).join("\n");
  if (now) parts.push(`[Now]\n${now}`);
  parts.push(notes.unprompted ? unpromptedPart(content) : playerPart(content));
  return parts.join("\n\n");
}

export function renderMessage(m: SessionMessage, secrets: KeptSecrets = "read"): { role: "user" | "assistant"; content: string } {
  if (m.role === "user") return { role: "user", content: renderUserTurn(m.content, m.notes, secrets) };
  return { role: "assistant", content: m.behaviour ? renderReplyWithTail(m.content, m.behaviour, m.tail) : m.content };
}

/** The notes' heading (the system prompt's rules name it). */
const LORE_HEADING = "[Lore]";
/** An unprompted line: nobody spoke, something happened; the mind speaks first (src/events react). */
function unpromptedPart(content: string): string {
  return `[Nobody has spoken to you. This just happened]\n${content}\n\nSay what you say now, in character.`;
}
function playerPart(content: string): string {
  return `[Player]\n${content}`;
}
