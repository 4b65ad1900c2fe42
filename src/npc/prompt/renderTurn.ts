import type { SceneContext } from "../validateInteract.ts";
import type { SessionMessage, TurnNotes } from "../session/sessionTypes.ts";

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

/** A user turn as the model sees it: the notes the server added, then what the player said. */
export function renderUserTurn(content: string, notes: TurnNotes | undefined): string {
  if (!notes || (!notes.lore?.length && !notes.memories?.length && !notes.scene)) return content;
  const parts: string[] = [];
  if (notes.scene) parts.push(`[Scene]\n${notes.scene}`);
  if (notes.lore?.length) parts.push(`[Lore]\n${notes.lore.map((l) => `(${l.documentName}) ${l.text}`).join("\n\n")}`);
  if (notes.memories?.length) parts.push(`[You remember about this player]\n${notes.memories.map((m) => `- ${m}`).join("\n")}`);
  parts.push(`[Player]\n${content}`);
  return parts.join("\n\n");
}

export function renderMessage(m: SessionMessage): { role: "user" | "assistant"; content: string } {
  return m.role === "user" ? { role: "user", content: renderUserTurn(m.content, m.notes) } : { role: "assistant", content: m.content };
}
