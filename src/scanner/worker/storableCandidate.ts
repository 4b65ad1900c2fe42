import type { Candidate } from "../extract/index.ts";
import { normalizeWords } from "../extract/text.ts";
import { fnv1a, wordStats } from "./wordSketch.ts";

/**
 * A classified candidate as ExtractionStore writes it: its keys (text hash, title key, word
 * count, MinHash sketch) and JSON columns computed beside extraction, so the thread that
 * stores (the scan's bottleneck on a big archive, and where its garbage piles up) only
 * looks up and binds (for speed and memory).
 */
export interface StorableCandidate {
  title: string;
  text: string;
  location: string | null;
  confidence: number;
  /** JSON of the tag names, the source files and the review metadata (parsed again only to merge). */
  tagsJson: string;
  sourceFilesJson: string;
  reviewJson: string;
  /** 128-bit equality key of the normalised text (and `distinctBy`), 32 hex digits. */
  textHash: string;
  titleKey: string;
  titleHash: number;
  uniqueWords: number;
  sketch: Uint8Array;
}

export function toStorable(c: Candidate): StorableCandidate {
  const words = c.words ?? normalizeWords(c.text);
  const titleKey = normalizeWords(c.title);
  const { unique, sketch } = wordStats(words);
  return {
    title: c.title,
    text: c.text,
    location: c.location,
    confidence: c.confidence,
    tagsJson: JSON.stringify(c.tags),
    sourceFilesJson: JSON.stringify(c.sourceFiles),
    reviewJson: JSON.stringify(c.review),
    textHash: textHashOf(c.distinctBy ? `${words}\u0000${c.distinctBy}` : words),
    titleKey,
    titleHash: fnv1a(titleKey),
    uniqueWords: unique,
    sketch,
  };
}

/** The set of a normalised text's words (the near-duplicate check's Jaccard is over these). */
export function uniqueWordsOf(words: string): Set<string> {
  return new Set(words.split(" "));
}

/**
 * 128 bits of two seeded wyhashes (Bun's native hash), as 32 hex digits: an equality key within one
 * job, not a security hash — a SHA-256 per candidate was a measurable part of storing.
 */
function textHashOf(s: string): string {
  return Bun.hash.wyhash(s, 0x51_7cc1b7n).toString(16).padStart(16, "0") + Bun.hash.wyhash(s, 0x2545_f491n).toString(16).padStart(16, "0");
}
