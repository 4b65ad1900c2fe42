import type { FileExtraction, Section, Skipped } from "./types.ts";
import { skipReason } from "./skipReason.ts";
import { MIN_LETTERS, SKIP, baseName, countLetters, fileStem, oneLine, stripGameMarkup, tidy } from "./text.ts";

/** Most skipped sections listed one by one per file; the rest are summarised per reason. */
const MAX_LISTED_SKIPS = 200;

export interface SectionInput {
  title?: string | null;
  text: string;
  kind: string;
  hints?: Section["hints"];
  /**
   * Fine-grained items (string literals, localisation entries, loose values) are mostly UI
   * words: too-short or empty ones are counted into one summary line instead of listed.
   */
  quiet?: boolean;
  reviewKind?: Section["reviewKind"];
  /** The title is a table key: a short text keeps its own candidate only when the key names lore (…_name, …_desc, bark …). */
  keyed?: boolean;
}

const LORE_KEY_RE = /name|desc|bark|lore|bio|title|quote|rumou?r|greeting|legend|history|story|flavou?r/i;

/** A short entry worth listing: has a capitalised word of 3+ letters and is not mostly digits or symbols. */
const LISTABLE_RE = /\p{Lu}\p{Ll}{2,}/u;
/** A list of short entries is cut into sections of about this many characters. */
const SHORT_LIST_CHARS = 4000;

/**
 * Applies the shared skip rules and title fallback to what a format extractor finds, so
 * every format reports sections and skips the same way.
 */
export class SectionCollector {
  private readonly sections: Section[] = [];
  private readonly skipped: Skipped[] = [];
  private readonly overflow = new Map<string, number>();
  /** The file name without directory and extension. */
  readonly stem: string;
  private added = 0;
  private quietShort = 0;
  /** Short untitled entries (names, labels) gathered into "<file> — short entries" sections. */
  private readonly shortList: string[] = [];
  private readonly shortSeen = new Set<string>();
  private fallbackIndexes: number[] = [];

  /** Scanner v2 (issue 12): markup stripped, no fixed letter minimum, short entries listed. */
  constructor(
    readonly sourceFile: string,
    readonly v2 = false,
  ) {
    this.stem = fileStem(sourceFile) || baseName(sourceFile) || sourceFile;
  }

  /** Title used when a format has nothing better: "<file stem> #<n>". */
  fallbackTitle(): string {
    return `${this.stem} #${this.added + 1}`;
  }

  add(input: SectionInput): void {
    const givenTitle = input.title ? oneLine(input.title, 200) : "";
    const title = givenTitle || this.fallbackTitle();
    this.added++;
    const text = tidy(this.v2 ? stripGameMarkup(input.text) : input.text);
    const reason = skipReason(text, this.v2);
    if (reason) {
      if (input.quiet && (reason === SKIP.tooShort || reason === SKIP.tooShortV2 || reason === SKIP.empty)) this.quietShort++;
      else this.skip(title, reason);
      return;
    }
    if (this.v2 && countLetters(text) < MIN_LETTERS && (input.quiet || !givenTitle || (input.keyed && !LORE_KEY_RE.test(givenTitle)))) {
      // Short and nothing says what it is: one list per file, not one candidate per label.
      const entry = oneLine(text, 120);
      if (LISTABLE_RE.test(entry) && !this.shortSeen.has(entry)) {
        this.shortSeen.add(entry);
        this.shortList.push(entry);
      } else this.quietShort++;
      return;
    }
    const section: Section = { title, text, sourceFile: this.sourceFile, kind: input.kind };
    if (input.reviewKind) section.reviewKind = input.reviewKind;
    if (input.hints && (input.hints.tags?.length || input.hints.location)) section.hints = input.hints;
    if (!givenTitle) {
      section.titled = false;
      this.fallbackIndexes.push(this.sections.length);
    }
    this.sections.push(section);
  }

  skip(section: string, reason: string): void {
    if (this.skipped.length < MAX_LISTED_SKIPS) {
      this.skipped.push({ section: oneLine(section, 200) || this.stem, reason, sourceFile: this.sourceFile });
    } else {
      this.overflow.set(reason, (this.overflow.get(reason) ?? 0) + 1);
    }
  }

  /** Skip the file as a whole (parse errors, binary content, unsupported type). */
  skipFile(reason: string): void {
    this.skip(baseName(this.sourceFile), reason);
  }

  finish(): FileExtraction {
    if (this.shortList.length) {
      let part: string[] = [];
      let size = 0;
      let n = 0;
      const flush = () => {
        n++;
        this.sections.push({ title: `${this.stem} — short entries${n > 1 ? ` (${n})` : ""}`, text: part.join("\n"), sourceFile: this.sourceFile, kind: "name-list" });
        part = [];
        size = 0;
      };
      for (const e of this.shortList) {
        if (size + e.length > SHORT_LIST_CHARS) flush();
        part.push(e);
        size += e.length + 1;
      }
      if (part.length) flush();
    }
    // A file that yields a single untitled section is titled by its name alone, not "name #1".
    if (this.added === 1 && this.fallbackIndexes.length === 1) this.sections[0].title = this.stem;
    if (this.quietShort > 0) {
      const noun = this.quietShort === 1 ? "entry" : "entries";
      this.skipped.push({ section: `${this.quietShort} short ${noun}`, reason: this.v2 ? SKIP.tooShortV2 : SKIP.tooShort, sourceFile: this.sourceFile });
    }
    for (const [reason, count] of this.overflow) {
      this.skipped.push({ section: `${count} more sections`, reason, sourceFile: this.sourceFile });
    }
    if (this.sections.length === 0 && this.skipped.length === 0) this.skipFile(SKIP.noProse);
    return { sections: this.sections, skipped: this.skipped };
  }
}
