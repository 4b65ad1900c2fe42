import { normalizeKey } from "./text.ts";

/** Keys that name a thing, best first (compared after normalizeKey: case, `_`, `-`, `m_` ignored). */
export const TITLE_KEYS = [
  "title", "displayname", "entityname", "charactername", "npcname", "itemname", "locationname", "fullname", "name",
  "label", "heading", "caption", "header", "speaker", "character", "resname", "id", "key", "slug",
] as const;

/** Keys whose value is prose worth keeping. */
const TEXT_KEYS = new Set([
  "description", "desc", "text", "lore", "bio", "biography", "backstory", "backstorysummary", "background", "history",
  "dialogue", "dialog", "dialogues", "dialogs", "lines", "line", "content", "body", "summary", "synopsis", "story",
  "details", "detail", "notes", "note", "flavor", "flavour", "flavortext", "flavourtext", "quote", "quotes", "message",
  "messages", "personality", "blurb", "tooltip", "tooltiptext", "about", "legend", "rumor", "rumors", "rumour",
  "rumours", "appearance", "journal", "greeting", "greetings", "barks", "prose", "passage", "excerpt", "hints",
  "speakingstyle", "knowledgedescription",
]);
/** "shortDescription", "flavorText", "npcBio", "introDialogue" … */
const TEXT_SUFFIXES = ["description", "desc", "text", "lore", "bio", "story", "dialogue", "dialog", "summary", "history"];

const TITLE_RANK = new Map<string, number>(TITLE_KEYS.map((k, i) => [k, i]));

export function isTextKey(key: string): boolean {
  const k = normalizeKey(key);
  if (TEXT_KEYS.has(k)) return true;
  return TEXT_SUFFIXES.some((s) => k.length > s.length && k.endsWith(s));
}

/** Rank of a title-like key (lower is better), or -1. */
export function titleRank(key: string): number {
  return TITLE_RANK.get(normalizeKey(key)) ?? -1;
}

/** A title value must read as a name: not empty, not a bare number, GUID or long hex. */
export function usableTitle(v: unknown): string | null {
  if (typeof v !== "string" && typeof v !== "number") return null;
  const s = String(v).replace(/\s+/g, " ").trim();
  if (!s || s.length > 200) return null;
  if (/^-?\d+(?:\.\d+)?$/.test(s) || /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s) || /^[0-9a-f]{16,}$/i.test(s)) return null;
  return s;
}
