import type { FileExtraction, Section, Skipped } from "./types.ts";
import { skipReason } from "./skipReason.ts";
import { isNameFacet, keyFacet, stemTitle } from "./keyGroups.ts";
import { UI_KEY_RE, isLabelList, isMessageTemplate, isShortCjkUi, isStatText, isTechnicalText } from "./techText.ts";
import { isManualHeading, toolWords } from "./contentKind.ts";
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
  /**
   * Entries of a keyed table (one candidate per key group): entries whose keys share a
   * stem (`sword_name`, `sword_desc`) are joined into one section, titled by the name-like member.
   * Entries of a record with the same name (a speaker's rows) pass the name itself.
   */
  groupKey?: string;
  /** A spoken line: a speaker's lines of one file are joined into one section titled by the speaker. */
  speaker?: string;
  /**
   * A screen's or a control's text (a Godot scene's labels): short entries are UI and only counted,
   * never listed as names.
   */
  ui?: boolean;
}

interface KeyGroup {
  order: number;
  title: string | null;
  /** A member's key says what the group is (a description, a bio): short texts stay their own candidate. */
  lore: boolean;
  texts: string[];
  size: number;
  input: SectionInput;
}

/** A key group grows to about this many characters, then the next members start a new part. */
const GROUP_CHARS = 4000;

const LORE_KEY_RE = /name|desc|bark|lore|bio|title|quote|rumou?r|greeting|legend|history|story|flavou?r/i;

/** A short entry worth listing: has a capitalised word of 3+ letters and is not mostly digits or symbols. */
const LISTABLE_RE = /\p{Lu}\p{Ll}{2,}/u;
/** Menu and button words: a short entry made only of these is UI text, never lore. */
const UI_WORDS = new Set(
  ("ok okay yes no cancel quit exit back next previous prev continue start new load save saved options settings menu main close open " +
    "play pause resume restart retry return accept decline confirm apply reset default on off enabled disabled done skip select submit " +
    "game title screen credits help loading language volume music sound sfx audio fullscreen windowed resolution controls keyboard " +
    "mouse gamepad delete edit copy paste undo redo remove add up down left right true false none all auto quick text speed history " +
    "log slot page empty file files error warning info ready sure are you do want to the a of and or is this your go bye goodbye hello hi thanks").split(" "),
);

/** Every word a menu/button word ("Quit game", "Are you sure?"). */
export function isUiText(entry: string): boolean {
  const words = entry.toLowerCase().match(/\p{L}+/gu);
  return !words || words.every((w) => UI_WORDS.has(w));
}

/**
 * One list of short entries per file (a location table's 2,000 names are one thing to
 * accept or reject); only a list past this many characters is cut into parts.
 */
const SHORT_LIST_CHARS = 100_000;
/** printf and .NET placeholders (%d, %s, %.1f, %1$s, {0}): a short text holding one is a program's message. */
const FORMAT_STRING_RE = /%(?:\d+\$)?[-+ 0#]*\d*(?:\.\d+)?[sdif]\b|\{\d+(?::[^}]*)?\}/;
/**
 * Past a few hundred entries or 5,000 characters a list of short entries is a table (a generated name
 * table, a label dump): counted as data, never one giant candidate nobody can review.
 */
const SHORT_TABLE_ENTRIES = 300;
const SHORT_TABLE_CHARS = 5_000;

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
  /** Fine-grained entries that read as UI/developer text, and stat templates: counted, not kept. */
  private uiText = 0;
  private statText = 0;
  /** Prose about the program itself (options, commands, windows): counted as meta, not kept. */
  private toolText = 0;
  /** Manual words of each kept section: in a document that is mostly a manual, lighter ones go too. */
  private readonly toolShare = new Map<Section, { hits: number; words: number }>();
  /** Short untitled entries (names, labels) gathered into "<file> — short entries" sections. */
  private readonly shortList: string[] = [];
  private readonly shortSeen = new Set<string>();
  private fallbackIndexes: number[] = [];
  private readonly groups = new Map<string, KeyGroup>();
  /** Position of each section in the file, so key groups (emitted at the end) keep their first member's place. */
  private readonly order: number[] = [];
  private seq = 0;

  /** Markup stripped, no fixed letter minimum, short entries listed. */
  constructor(
    readonly sourceFile: string,
    private readonly onWork?: (units: number) => void,
  ) {
    this.stem = fileStem(sourceFile) || baseName(sourceFile) || sourceFile;
  }

  /** Characters of a big file parsed so far (a YAML slice, a JSON container): the caller may collect garbage. */
  work(units: number): void {
    this.onWork?.(units);
  }

  /** Title used when a format has nothing better: "<file stem> #<n>". */
  fallbackTitle(): string {
    return `${this.stem} #${this.added + 1}`;
  }

  add(input: SectionInput): void {
    // A speaker's group cannot meet a key group: keys hold no NUL.
    if (input.speaker !== undefined) return this.addToGroup(input, `\u0000${input.speaker}`, null);
    if (input.groupKey !== undefined) {
      const { stem, facet } = keyFacet(input.groupKey);
      return this.addToGroup(input, stem, facet);
    }
    this.addAt(input, this.seq++);
  }

  private addToGroup(input: SectionInput, stem: string, facet: string | null): void {
    const text = input.text.trim();
    if (!text) return;
    let g = this.groups.get(stem);
    if (g && g.size + text.length > GROUP_CHARS) {
      this.flushGroup(g);
      this.groups.delete(stem);
      g = undefined;
    }
    if (!g) {
      g = { order: this.seq++, title: null, lore: false, texts: [], size: 0, input };
      this.groups.set(stem, g);
    }
    const named = isNameFacet(facet) && text.length <= 80 && !text.includes("\n");
    if (named && !g.title) g.title = text;
    else {
      if (!g.texts.includes(text)) g.texts.push(text);
    }
    g.lore ||= facet !== null || LORE_KEY_RE.test(input.groupKey ?? "");
    g.size += text.length;
    if (!g.title && !facet && g.texts.length === 1) g.title = input.title ?? null;
  }

  private flushGroup(g: KeyGroup): void {
    const title = g.title ?? g.input.title ?? stemTitle(keyFacet(g.input.groupKey ?? "").stem);
    // A name alone goes to the file's list of names; a name with its description is a candidate.
    const text = g.texts.length ? g.texts.join("\n\n") : (g.title ?? "");
    const named = g.texts.length > 0 && g.lore;
    this.addAt({ ...g.input, title, text, groupKey: undefined, speaker: undefined, quiet: g.input.quiet && !named, keyed: g.input.keyed && !named }, g.order);
  }

  private addAt(input: SectionInput, order: number): void {
    const givenTitle = input.title ? oneLine(input.title, 200) : "";
    const title = givenTitle || this.fallbackTitle();
    this.added++;
    const text = withoutAuthorNotes(tidy(stripGameMarkup(input.text)));
    const reason = skipReason(text);
    if (reason) {
      if (input.quiet && (reason === SKIP.tooShort || reason === SKIP.empty)) this.quietShort++;
      else this.skip(title, reason);
      return;
    }
    // Fine-grained entries (strings, labels, table values) whose key does not name lore are
    // dropped when they read as a settings screen or a developer message; stat templates anywhere short.
    const fine = input.quiet || input.keyed || input.ui;
    // A scene node's name ("Description") is not a data key: it earns no exemption.
    // A table value with a named macro (a stat template's macros are mechanics, below) or made of labels is a screen's
    // text; a short Chinese task/reward line a notification.
    const programMessage = (text.length < 200 && FORMAT_STRING_RE.test(text)) || (fine && ((isMessageTemplate(text) && !isStatText(text)) || isLabelList(text))) || isShortCjkUi(text);
    if (programMessage || (fine && !(givenTitle && !input.ui && LORE_KEY_RE.test(givenTitle)) && ((givenTitle && UI_KEY_RE.test(givenTitle)) || isTechnicalText(text)))) {
      this.uiText++;
      return;
    }
    const tool = toolWords(text, Infinity);
    // A document's section under a manual heading (options, credits, installation) is about the program, whatever it says.
    const headed = givenTitle && (input.kind === "prose" || input.kind === "markdown-heading") && isManualHeading(givenTitle);
    if (headed || tool.hits === Infinity || (tool.words >= 12 && tool.hits >= Math.max(4, Math.ceil(tool.words / 18)))) {
      this.toolText++;
      return;
    }
    if (text.length < 2000 && input.kind !== "markdown-heading" && input.kind !== "prose" && isStatText(text)) {
      this.statText++;
      return;
    }
    if (countLetters(text, MIN_LETTERS) < MIN_LETTERS && (input.quiet || !givenTitle || (input.keyed && !LORE_KEY_RE.test(givenTitle)))) {
      // Short and nothing says what it is: one list per file, not one candidate per label.
      const entry = oneLine(text, 120);
      if (!input.ui && LISTABLE_RE.test(entry) && !isUiText(entry) && !this.shortSeen.has(entry)) {
        this.shortSeen.add(entry);
        this.shortList.push(entry);
      } else this.quietShort++;
      return;
    }
    const section: Section = { title, text, sourceFile: this.sourceFile, kind: input.kind };
    this.toolShare.set(section, tool);
    if (input.reviewKind) section.reviewKind = input.reviewKind;
    if (input.hints && (input.hints.tags?.length || input.hints.location)) section.hints = input.hints;
    if (!givenTitle) {
      section.titled = false;
      this.fallbackIndexes.push(this.sections.length);
    }
    this.sections.push(section);
    this.order.push(order);
  }

  /**
   * A document of which a third or more of the sections are about the tool is a manual: its other
   * sections that name the tool at all (two words, one per 60) are manual too, its story is not.
   */
  private dropManualSections(): void {
    const kept = this.sections.length;
    if (this.toolText < 5 || this.toolText < (kept + this.toolText) / 3) return;
    const keep = this.sections.filter((s) => {
      const t = this.toolShare.get(s);
      return !t || t.hits < 2 || t.hits * 60 < t.words;
    });
    if (keep.length === kept) return;
    const keptSet = new Set(keep);
    this.fallbackIndexes = this.fallbackIndexes.filter((i) => keptSet.has(this.sections[i]));
    const order = this.order.filter((_, i) => keptSet.has(this.sections[i]));
    const fallbackSections = new Set(this.fallbackIndexes.map((i) => this.sections[i]));
    this.toolText += kept - keep.length;
    this.sections.length = 0;
    this.sections.push(...keep);
    this.order.length = 0;
    this.order.push(...order);
    this.fallbackIndexes = keep.flatMap((s, i) => (fallbackSections.has(s) ? [i] : []));
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
    this.dropManualSections();
    if (this.groups.size) {
      for (const g of this.groups.values()) this.flushGroup(g);
      this.groups.clear();
      // Key groups were emitted last: put every section back at its first member's place.
      const idx = this.sections.map((_, i) => i).sort((a, b) => this.order[a] - this.order[b]);
      const sorted = idx.map((i) => this.sections[i]);
      const fallback = new Set(this.fallbackIndexes.map((i) => this.sections[i]));
      this.sections.length = 0;
      this.sections.push(...sorted);
      this.fallbackIndexes = sorted.flatMap((s, i) => (fallback.has(s) ? [i] : []));
    }
    const shortChars = this.shortList.reduce((n, e) => n + e.length + 1, 0);
    if (this.shortList.length > SHORT_TABLE_ENTRIES || shortChars > SHORT_TABLE_CHARS) {
      this.skipped.push({ section: `${this.shortList.length} short entries`, reason: SKIP.shortTable, sourceFile: this.sourceFile });
    } else if (this.shortList.length) {
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
      this.skipped.push({ section: `${this.quietShort} short ${noun}`, reason: SKIP.shortUi, sourceFile: this.sourceFile });
    }
    if (this.uiText > 0) this.skipped.push({ section: `${this.uiText} ${this.uiText === 1 ? "entry" : "entries"}`, reason: SKIP.uiText, sourceFile: this.sourceFile });
    if (this.toolText > 0) this.skipped.push({ section: `${this.toolText} ${this.toolText === 1 ? "section" : "sections"}`, reason: SKIP.toolText, sourceFile: this.sourceFile });
    if (this.statText > 0) this.skipped.push({ section: `${this.statText} ${this.statText === 1 ? "entry" : "entries"}`, reason: SKIP.statText, sourceFile: this.sourceFile });
    for (const [reason, count] of this.overflow) {
      this.skipped.push({ section: `${count} more sections`, reason, sourceFile: this.sourceFile });
    }
    if (this.sections.length === 0 && this.skipped.length === 0) this.skipFile(SKIP.noProse);
    return { sections: this.sections, skipped: this.skipped };
  }
}

/**
 * Lines an author left for themselves ("TODO - track medal, note about Paul", "FIXME") are not the world's text: they go,
 * and a passage that was nothing else is empty. Upper case only: "Todo" or "todo" in a sentence is a word.
 */
function withoutAuthorNotes(text: string): string {
  if (!text.includes("TODO") && !text.includes("FIXME")) return text;
  return text.replace(/^[ \t]*(?:TODO|FIXME)\b.*(?:\r?\n|$)/gm, "").trim();
}
