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
}

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
}

export interface ProjectVocabulary {
  tags: string[];
  locations: string[];
}
