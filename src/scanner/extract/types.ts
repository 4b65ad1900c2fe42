/** One candidate piece of lore cut out of one file, before classification. */
export interface Section {
  /** Best human title (heading, name/title field, knot name, label, key …); falls back to "<file stem> #<n>". */
  title: string;
  /** Full text kept for commit as the Lore Document content (clean prose, no markup). */
  text: string;
  /** relativePath of the file in the archive. */
  sourceFile: string;
  /** e.g. "markdown-heading", "json-object", "csv-row", "ink-knot", "yarn-node", "code-string", "prose". */
  kind: string;
  /** Author-supplied hints (Markdown front matter, Twee passage tags, `tags`/`location` fields of an object). */
  hints?: { tags?: string[]; location?: string };
  /** False when `title` is the file-name fallback rather than a name found in the file. Absent means true. */
  titled?: boolean;
  /** What the extractor knows the section is about (a record file of monsters, front matter `tags: [item]` …). */
  reviewKind?: ReviewKind;
}

/** What a candidate is about, for review. */
export type ReviewKind = "character" | "location" | "item" | "faction" | "event" | "dialogue" | "other";

export interface Skipped {
  section: string;
  reason: string;
  sourceFile: string;
}

export interface FileExtraction {
  sections: Section[];
  skipped: Skipped[];
}

/** A section after classification and cross-file merge (spec: Extraction, minus the id the job assigns). */
export interface Candidate {
  title: string;
  text: string;
  tags: string[];
  /** The project's location NAME, or null. */
  location: string | null;
  /** In [0,1]; see the formula in classify.ts. */
  confidence: number;
  /** First 200 characters of text. */
  contentPreview: string;
  sourceFiles: string[];
  /** Review metadata beyond the spec's fields. */
  review: ReviewInfo;
  /** Set for records: equal text under different names stays apart (two monsters sharing a description). */
  distinctBy?: string;
  /** normalizeWords(text), computed once by classify and reused by the store's duplicate check. */
  words?: string;
}

export interface ReviewInfo {
  kind: ReviewKind;
  /** The entity or scene the candidate belongs to ("character:grip", "scene:intercept/start"): equal groups review together. */
  group: string;
  /** Why each tag and the location were matched ("'Wren' in text ×3", "front matter tag", "title"). */
  reasons: Record<string, string>;
  /** For dialogue: who speaks in it, most lines first. */
  speakers: string[];
  /** Other languages' versions of the same file or key. */
  variants: { language: string; sourceFile: string }[];
}

export interface ProjectVocabulary {
  tags: string[];
  locations: string[];
}
