import { MEMORY_STOPWORDS as STOPWORDS } from "../../core/text/commonWords.ts";
import { pluralStem } from "../../core/text/wordStem.ts";

// Text helpers shared by the summariser (dedupe), the store (merge) and retrieval (keywords).

/** Lower-case, NFKC, punctuation → space, whitespace collapsed: "The player's name is Ada." ≡ "the player s name is ada". */
export function normaliseMemoryText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, " ")
    .trim();
}

/** Collapses whitespace (including newlines and control characters) to single spaces. */
export function cleanLine(text: string): string {
  return text.replace(/[\p{Cc}\p{Z}]+/gu, " ").trim();
}

/**
 * Content words of `text`, lightly stemmed ("caravans" → "caravan": pluralStem, not the reply checks' Porter stems,
 * since world memories store these), for keyword overlap.
 * "player" is a stop word here: every memory is about the player.
 */
export function keywords(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of normaliseMemoryText(text).split(" ")) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    out.add(pluralStem(raw));
  }
  return out;
}

/**
 * Drops every sentence that repeats an earlier one of the same text (compared normalised): a small model's
 * degenerate "I'll pay next week. I'll pay next week. I'll pay" keeps its first sentence only; a trailing
 * fragment that begins a repeat is dropped with it.
 */
export function dropRepeatedSentences(text: string): string {
  const sentences = text.match(/[^.!?]+(?:[.!?]+|$)/g);
  if (!sentences || sentences.length < 2) return text;
  const seen: string[] = [];
  const out: string[] = [];
  for (const [i, s] of sentences.entries()) {
    const key = normaliseMemoryText(s);
    if (key === "") continue;
    const cutTail = i === sentences.length - 1 && !/[.!?]$/.test(s);
    if (seen.some((k) => k === key || (cutTail && k.startsWith(key)))) continue;
    seen.push(key);
    out.push(s);
  }
  return out.join("").trim();
}
