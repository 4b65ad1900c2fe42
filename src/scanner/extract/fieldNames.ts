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

/** Verdicts per raw key: a structured file repeats the same few keys thousands of times (a 2 MB YAML, ~60 ms). */
const textKeyCache = new Map<string, boolean>();
const titleRankCache = new Map<string, number>();
const CACHE_MAX = 10_000;

export function isTextKey(key: string): boolean {
  let v = textKeyCache.get(key);
  if (v === undefined) {
    const k = normalizeKey(key);
    v = TEXT_KEYS.has(k) || TEXT_SUFFIXES.some((s) => k.length > s.length && k.endsWith(s));
    if (textKeyCache.size >= CACHE_MAX) textKeyCache.clear();
    textKeyCache.set(key, v);
  }
  return v;
}

/** Rank of a title-like key (lower is better), or -1. */
export function titleRank(key: string): number {
  let v = titleRankCache.get(key);
  if (v === undefined) {
    v = TITLE_RANK.get(normalizeKey(key)) ?? -1;
    if (titleRankCache.size >= CACHE_MAX) titleRankCache.clear();
    titleRankCache.set(key, v);
  }
  return v;
}

/** A title value must read as a name: not empty, not a bare number, GUID or long hex. */
export function usableTitle(v: unknown): string | null {
  if (typeof v !== "string" && typeof v !== "number") return null;
  const s = String(v).replace(/\s+/g, " ").trim();
  if (!s || s.length > 200) return null;
  if (/^-?\d+(?:\.\d+)?$/.test(s) || /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s) || /^[0-9a-f]{16,}$/i.test(s)) return null;
  return s;
}
