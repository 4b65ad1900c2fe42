import { cleanLine, dropRepeatedSentences, normaliseMemoryText } from "./memoryText.ts";
import {
  MAX_DRAFT_TOPICS,
  MAX_MEMORIES_PER_SUMMARY,
  MAX_MEMORY_TEXT,
  MAX_TOPIC_LENGTH,
  type MemoryDraft,
} from "./types.ts";

/** Importance given to a memory whose importance is missing or unreadable. */
export const DEFAULT_IMPORTANCE = 5;

/**
 * Turns whatever a model produced into valid drafts, never throwing: accepts
 * `{memories: [...]}` or a bare array; an item is `{text, importance, topics}`
 * or a bare string. Texts are cleaned (a sentence repeating an earlier one is dropped) and capped, importance rounded and
 * clamped to 1–10, topics lower-cased and deduplicated; items without a letter
 * or digit are dropped, and items whose normalised texts are equal merge
 * (importance max, topics union). At most `max` drafts, in order.
 */
export function sanitiseDrafts(raw: unknown, max = MAX_MEMORIES_PER_SUMMARY): MemoryDraft[] {
  const list = Array.isArray(raw) ? raw : isRecord(raw) && Array.isArray(raw.memories) ? raw.memories : [];
  const byKey = new Map<string, MemoryDraft>();
  for (const item of list) {
    const draft = toDraft(item);
    if (!draft) continue;
    const key = normaliseMemoryText(draft.text);
    const seen = byKey.get(key);
    if (seen) {
      seen.importance = Math.max(seen.importance, draft.importance);
      seen.topics = unionTopics(seen.topics, draft.topics, MAX_DRAFT_TOPICS);
      continue;
    }
    if (byKey.size >= max) continue;
    byKey.set(key, draft);
  }
  return [...byKey.values()];
}

function toDraft(item: unknown): MemoryDraft | null {
  const obj = typeof item === "string" ? { text: item } : isRecord(item) ? item : null;
  if (!obj || typeof obj.text !== "string") return null;
  let text = dropRepeatedSentences(cleanLine(obj.text));
  if (text.length > MAX_MEMORY_TEXT) text = text.slice(0, MAX_MEMORY_TEXT).trimEnd();
  if (!/[\p{L}\p{N}]/u.test(text)) return null;
  return { text, importance: clampImportance(obj.importance), topics: cleanTopics(obj.topics) };
}

export function clampImportance(v: unknown): number {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) return DEFAULT_IMPORTANCE;
  return Math.min(10, Math.max(1, Math.round(n)));
}

export function cleanTopics(v: unknown): string[] {
  const items = Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
  const out: string[] = [];
  for (const t of items) {
    if (typeof t !== "string") continue;
    const topic = cleanLine(t).toLowerCase().slice(0, MAX_TOPIC_LENGTH).trim();
    if (!/[\p{L}\p{N}]/u.test(topic) || out.includes(topic)) continue;
    out.push(topic);
    if (out.length >= MAX_DRAFT_TOPICS) break;
  }
  return out;
}

/** `a` then the new topics of `b`, at most `max`. */
export function unionTopics(a: readonly string[], b: readonly string[], max: number): string[] {
  const out = [...a];
  for (const t of b) if (!out.includes(t)) out.push(t);
  return out.slice(0, max);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
