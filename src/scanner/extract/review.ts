import type { ReviewKind, Section } from "./types.ts";
import { countLetters, normalizeWords } from "./text.ts";

/**
 * Review metadata: kind, group, proper-noun matching of the project's
 * tags and locations (with the reason for each), speakers, and a confidence that
 * scores what is lore rather than how long it is.
 */

const NARRATIVE = new Set(["ink-knot", "ink-stitch", "yarn-node", "twee-passage", "renpy-label", "dialogic-timeline", "rpgmaker-event", "choicescript-passage"]);
const RECORD = new Set(["record", "json-object", "yaml-object", "toml-object", "xml-element", "csv-row", "unity-text", "godot-text", "keyed-entry"]);
const LOOSE = new Set(["json-string", "yaml-string", "toml-string", "po-entry", "strings-entry", "resx-entry", "xliff-unit", "name-list"]);
const CODE = new Set(["code-string", "code-comment"]);
/** Words from which a loose value of two sentences or more reads as a paragraph, not a label or a one-line notice. */
const LOOSE_PROSE_WORDS = 20;

// Words in a path, title or front-matter tag that say what a thing is.
const KIND_WORDS: [ReviewKind, RegExp][] = [
  ["character", /\b(?:characters?|npcs?|monsters?|creatures?|bestiary|persons?|people|heroes|villains?|races?|deit(?:y|ies)|gods?|goddess(?:es)?|companions?|bios?|biograph(?:y|ies)|cast|mobs?|enem(?:y|ies)|bosse?s?|units?|classes)\b/i],
  ["location", /\b(?:locations?|places?|regions?|cit(?:y|ies)|towns?|villages?|settlements?|buildings?|dungeons?|maps?|areas?|zones?|worlds?|planes?|realms?|kingdoms?|lands?|geography|terrain)\b/i],
  ["item", /\b(?:items?|objects?|artifacts?|artefacts?|weapons?|armou?rs?|equipment|gear|relics?|potions?|spells?|books?|scrolls?|ego_items?|loot|inventory|flavou?rs?)\b/i],
  ["faction", /\b(?:factions?|guilds?|organi[sz]ations?|orders?|clans?|houses?|cults?|religions?|temples?|conspirac(?:y|ies)|nations?|empires?|tribes?|peoples)\b/i],
  ["event", /\b(?:events?|history|histories|wars?|battles?|quests?|missions?|timelines?|eras?|ages?|chronicles?|legends?|myths?)\b/i],
];

/** The kind of a section: extractor's knowledge first, then narrative → dialogue, then words in hints, title and path. */
export function reviewKindOf(section: Section, speakers: string[]): ReviewKind {
  if (section.reviewKind) return section.reviewKind;
  const hintText = (section.hints?.tags ?? []).join(" ");
  for (const [kind, re] of KIND_WORDS) if (re.test(hintText)) return kind;
  if (NARRATIVE.has(section.kind) || speakers.length > 0) return "dialogue";
  const where = `${section.title} ${section.sourceFile.replace(/[_/.-]+/g, " ")}`;
  for (const [kind, re] of KIND_WORDS) if (re.test(where)) return kind;
  return "other";
}

/** Speakers of "Name: line" dialogue, most lines first (names up to 4 words, capitalised). */
export function speakersOf(text: string): string[] {
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^([\p{Lu}][\p{L}'’.-]*(?: [\p{Lu}][\p{L}'’.-]*){0,3}):[ \t]+\S/gmu)) {
    const name = m[1];
    if (/^(?:Note|Notes|Summary|Sources?|Warning|Title|Author|Tags?|Chance|Duration|Magnitude|Message|Content|Price|Type|Priority|Scope|Issue|Example|Step|Usage)$/.test(name)) continue;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n >= 1).sort((a, b) => b[1] - a[1]).map(([n]) => n);
}

/** Group key: entities by kind and normalised title (merging the same entity across files), scenes by file and title. */
export function groupOf(kind: ReviewKind, section: Section): string {
  let name = normalizeWords(section.title).replace(/ /g, "-") || "untitled";
  // Twine writes a scene's continuation as numbered passages ("Thieves' Guild 2" … "13"): one scene to review.
  if (section.kind === "twee-passage") name = name.replace(/(?<=.)-\d+$/, "");
  if (kind === "dialogue" || kind === "other" || section.titled === false) return `${kind === "dialogue" ? "scene" : kind}:${section.sourceFile}#${name}`;
  return `${kind}:${name}`;
}

export interface NameMatcher {
  name: string;
  /** Spellings that count in running text: the name as written and its Title Case form. */
  forms: string[];
  words: string;
  multiWord: boolean;
}

export function nameMatchers(names: string[]): NameMatcher[] {
  return names
    .map((name) => {
      const spaced = name.replace(/[-_]+/g, " ").trim();
      const title = spaced.replace(/(^|\s)(\p{Ll})/gu, (_m, sp: string, c: string) => sp + c.toUpperCase());
      const forms = [...new Set([name, spaced, title].filter((f) => /\p{Lu}/u.test(f.charAt(0)) || /\p{Lu}/u.test(f)))];
      // Only capitalised spellings: "ring" in "a ring of acidic fog" is a common word, "Ring" mid-sentence a name.
      return { name, forms: forms.filter((f) => /^\p{Lu}/u.test(f)), words: normalizeWords(name), multiWord: /\s/.test(spaced) };
    })
    .filter((m) => m.words && m.forms.length > 0);
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * Occurrences of a name as a proper noun: case-sensitive, whole word, and for a
 * one-word name not at the start of a sentence or line ("Over the hill" is not the city Over).
 */
export function properNounCount(text: string, m: NameMatcher): number {
  let n = 0;
  for (const form of m.forms) {
    for (let i = text.indexOf(form); i >= 0; i = text.indexOf(form, i + form.length)) {
      const before = i > 0 ? text[i - 1] : "";
      const after = text[i + form.length] ?? "";
      if ((before && WORD_CHAR.test(before)) || (after && WORD_CHAR.test(after))) continue;
      if (!m.multiWord && sentenceInitial(text, i)) continue;
      n++;
    }
  }
  return n;
}

function sentenceInitial(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && (text[j] === " " || text[j] === "\t" || text[j] === '"' || text[j] === "“" || text[j] === "'" || text[j] === "*" || text[j] === "(")) j--;
  return j < 0 || text[j] === "\n" || text[j] === "." || text[j] === "!" || text[j] === "?" || text[j] === ":" || text[j] === "…" || text[j] === "#";
}

/** An upper-case letter then a lower-case one; ASCII decided without a regex (most words of most texts). */
function capitalised(w: string): boolean {
  const a = w.charCodeAt(0);
  const b = w.charCodeAt(1);
  if (a < 128 && b < 128) return a >= 65 && a <= 90 && b >= 97 && b <= 122;
  return /^\p{Lu}\p{Ll}/u.test(w);
}

/** Capitalised words not at a sentence start: how much a text names things (proper nouns are what lore is about). */
export function properNounDensity(text: string): number {
  const sample = text.length > 3000 ? text.slice(0, 3000) : text;
  let names = 0;
  let words = 0;
  // For speed: the words of /\p{L}[\p{L}'’-]*/gu found by a scan of code points, ASCII letters decided
  // without a regex (the Unicode-aware regex iteration was the costliest step of scoring a candidate).
  let i = 0;
  while (i < sample.length) {
    const w = letterWidth(sample, i);
    if (w === 0) {
      i += codePointWidth(sample, i);
      continue;
    }
    const start = i;
    i += w;
    for (;;) {
      const c = sample.charCodeAt(i);
      if (c === 39 || c === 0x2019 || c === 45) i++;
      else {
        const n = i < sample.length ? letterWidth(sample, i) : 0;
        if (n === 0) break;
        i += n;
      }
    }
    words++;
    if (capitalisedAt(sample, start, i) && !sentenceInitial(sample, start)) names++;
  }
  return words ? names / words : 0;
}

/** Sticky: tested at an index, no substring cut out per character (CJK text is all non-ASCII letters). */
const LETTER_RE = /\p{L}/uy;

/** capitalised() of s[start, end) without cutting it out (most words are ASCII). */
function capitalisedAt(s: string, start: number, end: number): boolean {
  if (end - start < 2) return false;
  const a = s.charCodeAt(start);
  const b = s.charCodeAt(start + 1);
  if (a < 128 && b < 128) return a >= 65 && a <= 90 && b >= 97 && b <= 122;
  return capitalised(s.slice(start, end));
}

/** UTF-16 units of the letter (\p{L}, one code point) at `i`, or 0 when none starts there. */
function letterWidth(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 0;
  LETTER_RE.lastIndex = i;
  return LETTER_RE.test(s) ? codePointWidth(s, i) : 0;
}

/** 2 at a surrogate pair, else 1 (a lone surrogate is one code point, as in a /u regex). */
function codePointWidth(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/**
 * Confidence that a section is lore a studio would commit, in [0,1]:
 *   0.30 base by shape: narrative unit / titled record / wiki section 0.30, prose 0.25, keyed entry 0.20,
 *        name list 0.15, loose string 0.10 (0.25 when it is a paragraph: 20+ words, 2+ sentences), code string 0.05;
 * + 0.20 meaningful title (a name found in the file, not "<file> #n")
 * + 0.15 kind known (character, location, item, faction, event, dialogue)
 * + 0.15 names things: proper nouns ≥ 4% of words (scaled below that)
 * + 0.10 reads as sentences (ends of sentences per 40 words ≥ 1), or has speakers
 * + 0.05 per matched tag/location (at most 0.10)
 * − 0.20 markup or template residue ({…}, [/…], %x, _x_, =x_) over 2% of characters
 * Length only counts below 20 letters (−0.10: too little to stand alone).
 */
export function confidenceOf(section: Section, kind: ReviewKind, speakers: string[], matched: number): number {
  const k = section.kind;
  // Shares, not sums: the first 8,000 characters say as much as the whole (and keep long texts cheap).
  const text = section.text.length > 8000 ? section.text.slice(0, 8000) : section.text;
  const words = Math.max(1, text.split(/\s+/).length);
  const sentences = (text.match(/[.!?…]["”’)]?(?:\s|$)/g) ?? []).length;
  // A loose value that is a paragraph of prose (an encyclopedia entry, a briefing kept in a string table) is scored
  // as prose: its container says nothing of it. The short values beside it — labels, an option's one-line
  // description, a warning — keep the low base of loose strings.
  const looseProse = LOOSE.has(k) && k !== "name-list" && words >= LOOSE_PROSE_WORDS && sentences >= 2;
  const base = NARRATIVE.has(k) || k === "markdown-heading" || RECORD.has(k) ? 0.3 : k === "prose" || k === "html-text" || looseProse ? 0.25 : LOOSE.has(k) ? (k === "name-list" ? 0.15 : 0.1) : CODE.has(k) ? 0.05 : 0.2;
  const density = properNounDensity(text);
  const residue = (text.match(/\{[^}\n]{0,40}\}|\[\/?\w[^\]\n]{0,30}\]|%\w+|\b_\w+_\b|=\w+_/g) ?? []).join("").length / Math.max(1, text.length);
  let c = base;
  if (section.titled !== false) c += 0.2;
  if (kind !== "other") c += 0.15;
  c += 0.15 * Math.min(1, density / 0.04);
  if (speakers.length > 0 || sentences / (words / 40) >= 1) c += 0.1;
  c += Math.min(0.1, 0.05 * matched);
  if (residue > 0.02) c -= 0.2;
  if (countLetters(text, 20) < 20) c -= 0.1;
  return Math.round(Math.min(1, Math.max(0, c)) * 1000) / 1000;
}
