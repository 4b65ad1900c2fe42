import { nameForms } from "../replies/detectors.ts";

/** Verbs whose third-person form is not the stem plus "s". */
const IRREGULAR: Record<string, string> = { is: "are", was: "were", has: "have", does: "do", "isn't": "aren't", "wasn't": "weren't", "hasn't": "haven't", "doesn't": "don't" };
/** Words ending in "s" that are not a verb of the subject before them. */
const NOT_VERBS = new Set(["as", "this", "thus", "plus", "us", "yes", "perhaps", "always", "sometimes", "towards", "afterwards", "upstairs", "downstairs", "across", "unless", "its", "his", "hers", "less", "ones"]);
/** Adverbs that may sit between a subject and its verb ("Garrick never forgets"). */
const ADVERBS = "also|never|always|still|often|rarely|seldom|only|just|even|sometimes|quietly|secretly|usually|once|now|genuinely|really";
const GAP = `(\\s+(?:(?:${ADVERBS})\\s+){0,2})`;
/** Words after "her" that make it an object ("told her the truth"), not a possessive ("her furnace"). */
const NOT_AFTER_POSSESSIVE = "the|a|an|to|and|or|but|that|this|in|on|at|with|for|of|from|by|about|as|if|when|so|up|out|down|off|away|back|again|too|alone|into|over|what|how|why|where|who";
/** A past form or a modal: the same after "you". */
const SAME_AFTER_YOU = /^(?:\p{Ll}+(?:ed|ew|ept|ook|ame|ent|old|ad|ought|aught|ound|ade|oke|ost|ave|id|ew|an|at|ot|ung|ank|ore|ept|elt|eft|uilt)|can|could|will|would|may|might|must|shall|should|cannot|can't|won't|wouldn't|couldn't|didn't)$/u;

/** "loves" → "love", "carries" → "carry", "watches" → "watch", "is" → "are"; null when it is not a third-person verb. */
export function baseForm(verb: string): string | null {
  const lower = verb.toLowerCase();
  if (IRREGULAR[lower]) return IRREGULAR[lower];
  if (NOT_VERBS.has(lower) || !/^\p{Ll}{2,}s$/u.test(verb) || /(ss|us|is)$/.test(lower)) return null;
  if (/[^aeiou]ies$/.test(lower)) return `${verb.slice(0, -3)}y`;
  if (/(ch|sh|x|z|o)es$/.test(lower)) return verb.slice(0, -2);
  return verb.slice(0, -1);
}

/** The verb after a subject that became "you": agreed, or null when the word is no verb of it (leave the subject). */
function agree(verb: string): string | null {
  const base = baseForm(verb);
  if (base) return base;
  return SAME_AFTER_YOU.test(verb) ? verb : null;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A mind's own prose (personality, backstory, speaking style, hints, restrictions) addressed to the mind: its
 * name as a subject becomes "you" with the verb agreeing ("Marisol tells buyers" → "You tell buyers", "Garrick is"
 * → "You are"), its possessive "your" ("Garrick's inn" → "your inn"), a sentence opened by "He" or "She" (in a
 * persona, the mind itself) the same, and in a sentence so rewritten, after its subject, "he"/"she" as subjects, "his",
 * "her" before a noun and "himself"/"herself". Why: a small model continues the voice it reads, and a persona written "Marisol is …"
 * had the NPC speak of itself by name in the third person ("Marisol tells buyers …"). Other people's names, object
 * pronouns ("him", "her": they may be anyone's) and sentences about others are left as written.
 */
export function toSecondPerson(text: string, mindName: string): string {
  // The same persona is rendered for every turn and every fitting of the prompt: rewritten once.
  const key = `${mindName}\u0000${text}`;
  const hit = CACHE.get(key);
  if (hit !== undefined) return hit;
  const out = rewrite(text, mindName);
  // Full: the older half (by first use) goes at once. Not one entry a miss, nor a move to the end on each hit: in
  // Bun a map of this size pays ~13–25 µs for either (it rehashes or walks its deleted slots), more than a rewrite.
  if (CACHE.size >= SECOND_PERSON_CACHED) CACHE = new Map([...CACHE].slice(CACHE.size >> 1));
  CACHE.set(key, out);
  return out;
}

/** Whether this text of this mind is held rewritten (the cache's bound is what a test checks). */
export function secondPersonCached(text: string, mindName: string): boolean {
  return CACHE.has(`${mindName}\u0000${text}`);
}

let CACHE = new Map<string, string>();
/**
 * Texts held rewritten, the older half out when full: a mind has one a persona field, hint and restriction (~10),
 * so 3,000 minds fit. The whole cache once went at 4,096 entries, and a big world's minds were rewritten again and
 * again as they took turns.
 */
export const SECOND_PERSON_CACHED = 32_768;

function rewrite(text: string, mindName: string): string {
  // Its surname too ("Hesk was made captain"): in the mind's own persona it is the mind.
  const parts = mindName.trim().split(/\s+/);
  const surname = parts.length > 1 && parts.at(-1)!.length > 2 ? [parts.at(-1)!] : [];
  const forms = [...new Set([...nameForms(mindName), ...surname])].sort((a, b) => b.length - a.length).map(escape);
  if (forms.length === 0) return text;
  const name = `(?:${forms.join("|")})`;
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => sentence(s, name))
    .join(" ");
}

function sentence(s: string, name: string): string {
  let out = s.replace(new RegExp(`(^|[^\\p{L}])${name}'s(?![\\p{L}])`, "gu"), (_m, lead: string, at: number) => `${lead}${at === 0 && lead === "" ? "Your" : "your"}`);
  // The name as a subject anywhere ("…, and Garrick makes sure"), He / She only where they open the sentence.
  let from = -1;
  const subject = new RegExp(`(^|[^\\p{L}'])(${name}|^He|^She)${GAP}(\\p{Ll}[\\p{L}']*)`, "gu");
  out = out.replace(subject, (m, lead: string, _who: string, gap: string, verb: string, at: number) => {
    const v = agree(verb);
    if (!v) return m;
    if (from < 0) from = at;
    return `${lead}${at === 0 && lead === "" ? "You" : "you"}${gap}${v}`;
  });
  if (from < 0) return out;
  // After the mind became the subject: its pronouns, and the verbs it goes on with ("…, remembers every face", "and hates waste").
  const rest = out
    .slice(from)
    .replace(new RegExp(`(^|[^\\p{L}])(he|she)${GAP}(\\p{Ll}[\\p{L}']*)`, "gu"), (m, lead: string, _p: string, gap: string, verb: string) => {
      const v = agree(verb);
      return v ? `${lead}you${gap}${v}` : m;
    })
    .replace(/(,\s+|\band\s+|\bbut\s+)(\p{Ll}{2,}s)(?=\s+(?!and\b|or\b)\p{Ll})/gu, (m, lead: string, verb: string) => {
      const v = baseForm(verb);
      return v ? `${lead}${v}` : m;
    })
    .replace(/\b(his|her) own\b/g, "your own")
    .replace(/\bhis\b/g, "your")
    // "her" before a noun is hers ("her furnace"); before an article or a preposition it is an object, left alone
    .replace(new RegExp(`\\bher(?=\\s+(?!(?:${NOT_AFTER_POSSESSIVE})\\b)\\p{Ll})`, "gu"), "your")
    .replace(/\b(himself|herself)\b/g, "yourself");
  return out.slice(0, from) + rest;
}
