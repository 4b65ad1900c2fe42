import type { Section } from "./types.ts";
import { countLetters, MIN_LETTERS, normalizeWords } from "./text.ts";

/**
 * Scanner v1 matching and confidence (kept while v2 is opt-in, see README "Scanner v2"):
 * tags as whole words case-/hyphen-insensitively; location 3·title + text + 5·hint;
 * confidence = 0.15 + structure + length (40 letters → 0, ≥ 2000 → 0.30) + tags + location.
 */
const STRUCTURE_WEIGHT: Record<string, number> = {
  "json-object": 0.3, "yaml-object": 0.3, "toml-object": 0.3, "xml-element": 0.3, "csv-row": 0.3,
  "unity-text": 0.3, "godot-text": 0.3,
  "markdown-heading": 0.25, "html-text": 0.25, "ink-knot": 0.25, "ink-stitch": 0.25, "yarn-node": 0.25,
  "twee-passage": 0.25, "renpy-label": 0.25, "dialogic-timeline": 0.25,
  prose: 0.2,
  "po-entry": 0.15, "strings-entry": 0.15, "resx-entry": 0.15, "xliff-unit": 0.15,
  "json-string": 0.1, "yaml-string": 0.1, "toml-string": 0.1,
  "code-string": 0.05, "code-comment": 0.05,
};
const DEFAULT_STRUCTURE = 0.15;

export interface LegacyScore {
  tags: Set<string>;
  location: string | null;
  confidence: number;
}

export function legacyScore(section: Section, tagNames: { name: string; words: string }[], locNames: { name: string; words: string }[]): LegacyScore {
  const title = ` ${normalizeWords(section.title)} `;
  const text = ` ${normalizeWords(section.text)} `;
  const hintTags = new Set((section.hints?.tags ?? []).map(normalizeWords));
  const hintLoc = section.hints?.location ? normalizeWords(section.hints.location) : null;
  const tags = new Set<string>();
  for (const t of tagNames) {
    if (hintTags.has(t.words) || title.includes(` ${t.words} `) || text.includes(` ${t.words} `)) tags.add(t.name);
  }
  let location: string | null = null;
  let best = 0;
  for (const l of locNames) {
    const needle = ` ${l.words} `;
    const score = 3 * countOccurrences(title, needle) + countOccurrences(text, needle) + (hintLoc === l.words ? 5 : 0);
    if (score > best) {
      best = score;
      location = l.name;
    }
  }
  const structure = Math.max(0, (STRUCTURE_WEIGHT[section.kind] ?? DEFAULT_STRUCTURE) - (section.titled === false ? 0.1 : 0));
  const letters = countLetters(section.text);
  const length = 0.3 * clamp01(Math.log(letters / MIN_LETTERS) / Math.log(2000 / MIN_LETTERS));
  const tagScore = tags.size >= 2 ? 0.15 : tags.size === 1 ? 0.1 : 0;
  return { tags, location, confidence: 0.15 + structure + length + tagScore + (location ? 0.1 : 0) };
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  // Needles are space-padded, so step back one to let adjacent mentions share a space.
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length - 1)) n++;
  return n;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
