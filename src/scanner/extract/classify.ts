import type { Candidate, ProjectVocabulary, ReviewInfo, Section } from "./types.ts";
import { firstChars, normalizeWords } from "./text.ts";
import { confidenceOf, groupOf, nameMatchers, properNounCount, reviewKindOf, speakersOf } from "./review.ts";

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
  review: ReviewInfo;
}

/**
 * Tags, location, review metadata and confidence per section, then one candidate per distinct text.
 *
 * Tags and locations match as proper nouns: case-sensitively, as whole words, in the
 * name's own spelling or its Title Case form (`town-history` → "Town History"); a one-word name
 * never at the start of a sentence or line ("Over the hill" is not the city Over; "a ring of fog"
 * is not the tag ring). A hint (front matter, passage tag, `tags`/`location` field) names one
 * whatever its case. Each match carries its reason in `review.reasons`.
 *
 * Location: the project location with the highest score 3·(mentions in title) + (mentions in
 * text) + 5·(named by a hint); ties go to the earlier location in the project's list; null
 * when nothing is mentioned.
 *
 * Confidence: see confidenceOf in review.ts (what is lore, not length); for a merged
 * duplicate +0.05 per additional source file; clamped to [0,1] and rounded to 3 decimals.
 *
 * Duplicates: sections whose text is equal after normalisation (case, accents, punctuation,
 * whitespace), or whose titles are equal and whose word sets overlap ≥ 90% (Jaccard), become one
 * candidate: the highest-confidence member gives title and text, tags are unioned, sourceFiles
 * are unioned in first-seen order. Candidates keep the order of their first section.
 */
export function classify(sections: Section[], project: ProjectVocabulary, ): Candidate[] {
  const tagNames = nameMatchers(project.tags);
  const locNames = nameMatchers(project.locations);

  const scored: Scored[] = sections.map((section, index) => {
    const words = normalizeWords(section.text);
    const hintTags = new Set((section.hints?.tags ?? []).map(normalizeWords));
    const hintLoc = section.hints?.location ? normalizeWords(section.hints.location) : null;
    const reasons: Record<string, string> = {};

    const tags = new Set<string>();
    for (const t of tagNames) {
      if (hintTags.has(t.words)) {
        tags.add(t.name);
        reasons[t.name] = "tagged in the file";
        continue;
      }
      const inTitle = properNounCount(section.title, t) + (section.title === t.name ? 1 : 0);
      const inText = properNounCount(section.text, t);
      if (inTitle || inText) {
        tags.add(t.name);
        reasons[t.name] = inTitle ? `'${t.name}' in the title` : `'${t.name}' in the text ×${inText}`;
      }
    }
    let location: string | null = null;
    let best = 0;
    for (const l of locNames) {
      const inTitle = properNounCount(section.title, l) + (section.title === l.name ? 1 : 0);
      const inText = properNounCount(section.text, l);
      const hinted = hintLoc === l.words;
      const score = 3 * inTitle + inText + (hinted ? 5 : 0);
      if (score > best) {
        best = score;
        location = l.name;
        reasons[`location:${l.name}`] = hinted ? "location field of the file" : inTitle ? `'${l.name}' in the title` : `'${l.name}' in the text ×${inText}`;
      }
    }
    for (const k of Object.keys(reasons)) if (k.startsWith("location:") && k !== `location:${location}`) delete reasons[k];
    if (location) {
      reasons.location = reasons[`location:${location}`];
      delete reasons[`location:${location}`];
    }
    const speakers = speakersOf(section.text);
    const kind = reviewKindOf(section, speakers);
    const review: ReviewInfo = { kind, group: groupOf(kind, section), reasons, speakers, variants: [] };
    const confidence = confidenceOf(section, kind, speakers, tags.size + (location ? 1 : 0));
    return { section, index, tags, location, confidence, words, review };
  });

  // Group duplicates (union into the first group that matches).
  const groups: Scored[][] = [];
  const byText = new Map<string, number>();
  const byTitle = new Map<string, number[]>();
  const groupWords: Set<string>[] = [];
  for (const s of scored) {
    const textKey = s.section.kind === "record" ? `${s.words}\u0000${s.section.title}` : s.words;
    let g = byText.get(textKey);
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
      byText.set(textKey, g);
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
    const reasons: Record<string, string> = {};
    for (const m of members) for (const [k, v] of Object.entries(m.review.reasons)) reasons[k] ??= v;
    const speakers = [...new Set(members.flatMap((m) => m.review.speakers))];
    return {
      title: lead.section.title,
      text: lead.section.text,
      tags: [...tags].sort((a, b) => (tagOrder.get(a) ?? 0) - (tagOrder.get(b) ?? 0)),
      location,
      confidence,
      contentPreview: firstChars(lead.section.text, 200),
      sourceFiles,
      review: { ...lead.review, reasons, speakers },
      words: lead.words,
      ...(lead.section.kind === "record" ? { distinctBy: lead.section.title } : {}),
    };
  });
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
