import type { Candidate, ProjectVocabulary, Section } from "./types.ts";
import { countLetters, firstChars, MIN_LETTERS, normalizeWords } from "./text.ts";

/** How much the shape of a section says "this is lore" (see the formula below). */
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
/** Same-title sections are compared for near-identical text against at most this many earlier ones. */
const MAX_NEAR_COMPARISONS = 50;
const NEAR_IDENTICAL = 0.9;

interface Scored {
  section: Section;
  index: number;
  tags: Set<string>;
  location: string | null;
  confidence: number;
  words: string;
}

/**
 * Tags, location and confidence per section, then one candidate per distinct text.
 *
 * Tags: a project tag matches when its words appear as whole words in the title or text
 * (case-, accent- and hyphen/space-insensitive: `town-history` matches "Town History"), or
 * when a hint (front matter, passage tag, `tags` field) names it.
 *
 * Location: the project location with the highest score 3·(mentions in title) + (mentions in
 * text) + 5·(named by a hint); ties go to the earlier location in the project's list; null
 * when nothing is mentioned.
 *
 * Confidence = 0.15
 *   + structure  (0–0.30: titled object/row 0.30, narrative unit or heading 0.25, prose 0.20,
 *                 localisation entry 0.15, loose data string 0.10, code string/comment 0.05;
 *                 −0.10 when the title is only the file-name fallback)
 *   + length     0.30 · clamp(log(letters/40) / log(2000/40), 0, 1)   (40 letters → 0, ≥2000 → 0.30)
 *   + tags       0.10 for one matched tag, 0.15 for two or more
 *   + location   0.10 when a location was found
 * then, for a merged duplicate, +0.05 per additional source file; clamped to [0,1] and rounded
 * to 3 decimals.
 *
 * Duplicates: sections whose text is equal after normalisation (case, accents, punctuation,
 * whitespace), or whose titles are equal and whose word sets overlap ≥ 90% (Jaccard), become one
 * candidate: the highest-confidence member gives title and text, tags are unioned, sourceFiles
 * are unioned in first-seen order. Candidates keep the order of their first section.
 */
export function classify(sections: Section[], project: ProjectVocabulary): Candidate[] {
  const tagNames = project.tags.map((name) => ({ name, words: normalizeWords(name) })).filter((t) => t.words);
  const locNames = project.locations.map((name) => ({ name, words: normalizeWords(name) })).filter((l) => l.words);

  const scored: Scored[] = sections.map((section, index) => {
    const title = ` ${normalizeWords(section.title)} `;
    const words = normalizeWords(section.text);
    const text = ` ${words} `;
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
    const confidence = 0.15 + structure + length + tagScore + (location ? 0.1 : 0);
    return { section, index, tags, location, confidence, words };
  });

  // Group duplicates (union into the first group that matches).
  const groups: Scored[][] = [];
  const byText = new Map<string, number>();
  const byTitle = new Map<string, number[]>();
  const groupWords: Set<string>[] = [];
  for (const s of scored) {
    let g = byText.get(s.words);
    const titleKey = normalizeWords(s.section.title);
    const sameTitle = byTitle.get(titleKey);
    if (g === undefined && sameTitle) {
      const mine = new Set(s.words.split(" "));
      for (let k = Math.max(0, sameTitle.length - MAX_NEAR_COMPARISONS); k < sameTitle.length; k++) {
        const other = (groupWords[sameTitle[k]] ??= new Set(groups[sameTitle[k]][0].words.split(" ")));
        if (nearIdentical(mine, other)) {
          g = sameTitle[k];
          break;
        }
      }
    }
    if (g === undefined) {
      g = groups.length;
      groups.push([]);
      byText.set(s.words, g);
      const list = byTitle.get(titleKey) ?? [];
      list.push(g);
      byTitle.set(titleKey, list);
    }
    groups[g].push(s);
  }

  const tagOrder = new Map(project.tags.map((t, i) => [t, i]));
  return groups.map((members) => {
    let lead = members[0];
    for (const m of members) if (m.confidence > lead.confidence) lead = m;
    const tags = new Set<string>();
    for (const m of members) for (const t of m.tags) tags.add(t);
    const sourceFiles: string[] = [];
    for (const m of members) if (!sourceFiles.includes(m.section.sourceFile)) sourceFiles.push(m.section.sourceFile);
    const location = lead.location ?? members.find((m) => m.location)?.location ?? null;
    const confidence = round3(clamp01(lead.confidence + 0.05 * (sourceFiles.length - 1)));
    return {
      title: lead.section.title,
      text: lead.section.text,
      tags: [...tags].sort((a, b) => (tagOrder.get(a) ?? 0) - (tagOrder.get(b) ?? 0)),
      location,
      confidence,
      contentPreview: firstChars(lead.section.text, 200),
      sourceFiles,
    };
  });
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  // Needles are space-padded, so step back one to let adjacent mentions share a space.
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length - 1)) n++;
  return n;
}

/** Jaccard similarity of word sets ≥ 90%, checked only when the lengths are within 10% of each other. */
function nearIdentical(mine: Set<string>, other: Set<string>): boolean {
  const small = Math.min(mine.size, other.size);
  const large = Math.max(mine.size, other.size);
  if (large === 0 || small / large < NEAR_IDENTICAL) return false;
  let shared = 0;
  for (const w of mine) if (other.has(w)) shared++;
  return shared / (mine.size + other.size - shared) >= NEAR_IDENTICAL;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
