import type { FileExtraction, Section, Skipped } from "./types.ts";
import { skipReason } from "./skipReason.ts";
import { SKIP, baseName, fileStem, oneLine, tidy } from "./text.ts";

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
}

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
  private fallbackIndexes: number[] = [];

  constructor(readonly sourceFile: string) {
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
    const text = tidy(input.text);
    const reason = skipReason(text);
    if (reason) {
      if (input.quiet && (reason === SKIP.tooShort || reason === SKIP.empty)) this.quietShort++;
      else this.skip(title, reason);
      return;
    }
    const section: Section = { title, text, sourceFile: this.sourceFile, kind: input.kind };
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
    // A file that yields a single untitled section is titled by its name alone, not "name #1".
    if (this.added === 1 && this.fallbackIndexes.length === 1) this.sections[0].title = this.stem;
    if (this.quietShort > 0) {
      const noun = this.quietShort === 1 ? "entry" : "entries";
      this.skipped.push({ section: `${this.quietShort} short ${noun}`, reason: SKIP.tooShort, sourceFile: this.sourceFile });
    }
    for (const [reason, count] of this.overflow) {
      this.skipped.push({ section: `${count} more sections`, reason, sourceFile: this.sourceFile });
    }
    if (this.sections.length === 0 && this.skipped.length === 0) this.skipFile(SKIP.noProse);
    return { sections: this.sections, skipped: this.skipped };
  }
}
