import type { SceneContext } from "../validateInteract.ts";
import type { SessionMessage, TurnNotes } from "../session/sessionTypes.ts";
import { renderNow } from "./conditionalLines.ts";
import { renderActionResults, renderReplyWithTail } from "../../behaviour/behaviourPrompt.ts";
import { kept, SECRET_MARK, SECRET_STRATEGY, SECRETS_HEADING } from "../secrets/secretFraming.ts";

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
  const mark = kept(l) && SECRET_STRATEGY !== "block" ? ` ${SECRET_MARK}` : "";
  return `About ${l.documentName}${mark}: ${l.text.trim()}`;
}

/** The notes' blocks: `[Lore]`, and (secrets apart) the mind's secrets under their own heading first. */
export function loreBlocks(lore: NonNullable<TurnNotes["lore"]>, order: "best last" | "as given" = "best last"): string[] {
  const apart = SECRET_STRATEGY === "block";
  const secrets = apart ? lore.filter(kept) : [];
  const rest = apart ? lore.filter((l) => !kept(l)) : lore;
  const render = (ls: typeof lore) => (order === "best last" ? renderLore(ls) : ls.map(loreNote).join("\n\n"));
  const out: string[] = [];
  if (secrets.length) out.push(`${SECRETS_HEADING}\n${render(secrets)}`);
  if (rest.length) out.push(`${LORE_HEADING}\n${render(rest)}`);
  return out;
}

/** A user turn as the model sees it: the notes the server added, then what the player said. */
export function renderUserTurn(content: string, notes: TurnNotes | undefined): string {
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

export function renderMessage(m: SessionMessage): { role: "user" | "assistant"; content: string } {
  if (m.role === "user") return { role: "user", content: renderUserTurn(m.content, m.notes) };
  return { role: "assistant", content: m.behaviour ? renderReplyWithTail(m.content, m.behaviour, m.tail) : m.content };
}

// EXPERIMENT (removed once chosen): the notes' heading, and how the player's line is framed after the notes.
const LORE_HEADING = process.env.LOREHOLD_EXPERIMENT_PROMPT === "v3" ? "What you know and remember:" : "[Lore]";
const PLAYER_FRAMING = process.env.LOREHOLD_EXPERIMENT_PLAYER ?? "bracket";
/** An unprompted line: nobody spoke, something happened; the mind speaks first (src/events react). */
function unpromptedPart(content: string): string {
  return `[Nobody has spoken to you. This just happened]\n${content}\n\nSay what you say now, in character.`;
}
function playerPart(content: string): string {
  if (PLAYER_FRAMING === "quoted") return `[Player, to you]\n"${content}"`;
  if (PLAYER_FRAMING === "says") return `The player says to you: "${content}"`;
  return `[Player]\n${content}`;
}
