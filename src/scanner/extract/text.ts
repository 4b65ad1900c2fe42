/** Small text helpers shared by every format. All are linear in the input. */

/**
 * Below this many letters a text is "short": kept as its own candidate only when its title
 * (a record's name, a heading) says what it is, else gathered into the file's list of short
 * entries (no fixed minimum).
 */
export const MIN_LETTERS = 40;

/** Skip reasons, worded once so reviewers see the same phrase for the same cause. */
export const SKIP = {
  empty: "Empty",
  tooShort: "Too short (no words)",
  /** Fine-grained entries (table values, strings) that are UI words or unnamed fragments, counted in one line per file. */
  shortUi: "Short UI text or label (not lore)",
  /** Entries of settings screens, controls and developer messages, counted in one line per file. */
  uiText: "UI, settings or developer text (not lore)",
  /** Templates of game-rule figures (Duration: %bdr, Chance: 25 …), counted in one line per file. */
  statText: "Game mechanics (stat template, not lore)",
  license: "Boilerplate (license header)",
  generated: "Boilerplate (auto-generated)",
  metadata: "Boilerplate (file metadata)",
  identifiers: "Identifiers only (GUIDs / file IDs)",
  numeric: "Numeric table (no prose)",
  codeOnly: "Code only (no prose)",
  binary: "Binary or unreadable content",
  unsupported: "Unsupported file type",
  noProse: "No prose found",
  /** A play log or console dump: lines stamped with dates or times. */
  log: "Skipped: log (runtime output, not lore)",
  /** Settings lines (name = value) in a text file. */
  config: "Skipped: code (configuration file)",
  /** Rows of numbers, flags and identifiers. */
  dataTable: "Skipped: data (a table of game data)",
  /** A long list of short entries: a generated name table, a label list — counted, not one giant candidate. */
  shortTable: "Skipped: data (a table of short entries: names, labels)",
  /** Prose about the program (options, commands, windows): a manual, tutorial or developer text. */
  toolText: "Skipped: meta (text about the tool: manual, tutorial or developer docs)",
  // Parsers append a code excerpt after the first line (yaml): the first line is the message.
  parse: (detail: string) => `Parse error: ${oneLine(detail.split("\n")[0].replace(/:$/, ""), 200)}`,
} as const;

const LETTER_RE = /\p{L}/u;

/** Letters in `s`, counting stops once `cap` is reached (callers that only compare with a threshold pass it). */
export function countLetters(s: string, cap = Infinity): number {
  let n = 0;
  for (let i = 0; i < s.length && n < cap; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) {
      if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) n++;
    } else if (c >= 0xc0 && c <= 0x24f) {
      // Latin-1 and Latin Extended letters (× and ÷ are the only symbols there): no regex needed.
      if (c !== 0xd7 && c !== 0xf7) n++;
    } else if ((c >= 0x2000 && c <= 0x206f) || c === 0xa0 || (c >= 0xd800 && c <= 0xdfff)) {
      // General punctuation (dashes, quotes, ellipsis), no-break space, surrogate halves: not letters.
    } else if (LETTER_RE.test(s[i])) n++;
  }
  return n;
}

export function countDigits(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

/** Collapse runs of blanks, trim every line, keep at most one empty line between paragraphs. */
export function tidy(s: string): string {
  // Patterns only match what needs changing (not every single space): this runs on every section.
  const t = s.includes("\r") ? s.replace(/\r\n?/g, "\n") : s;
  const blanks = t.replace(/[\t\f\v\u00a0][ \t\f\v\u00a0]*| {2,}/g, " ");
  // One line (a table's cell, a label): the line patterns cannot match, and scanning for them was a third of tidy.
  if (!blanks.includes("\n")) return blanks.trim();
  return blanks
    .replace(/ \n ?|\n /g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** One line, whitespace collapsed, cut at `max` characters. */
export function oneLine(s: string, max = 200): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max).trimEnd() : t;
}

/** "npc_garrick-Bio" → "npcgarrickbio": how structured keys are compared (also drops Unity's m_ and XML's @_). */
export function normalizeKey(key: string): string {
  return key
    .replace(/^(?:m_|@_)/, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
}

/** Lower-case, accents stripped, every run of non-alphanumerics a single space: how names are matched in prose. */
const ASCII_RE = /^[\x00-\x7f]*$/;

export function normalizeWords(s: string): string {
  // ASCII needs no Unicode normalisation (most texts): the cheap path.
  if (ASCII_RE.test(s)) return s.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim();
  return s
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** "Data/NPCs/garrick.asset" → "garrick". */
export function fileStem(relativePath: string): string {
  const base = baseName(relativePath);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

export function baseName(relativePath: string): string {
  const i = Math.max(relativePath.lastIndexOf("/"), relativePath.lastIndexOf("\\"));
  return relativePath.slice(i + 1);
}

export function extensionOf(relativePath: string): string {
  const base = baseName(relativePath);
  const dot = base.lastIndexOf(".");
  return dot >= 0 ? base.slice(dot).toLowerCase() : "";
}

/** Does a string read like words rather than an identifier, path, number or GUID? (cheap pre-filter for loose strings) */
export function looksLikeWords(s: string): boolean {
  if (!/\s/.test(s.trim())) return false;
  if (/^(?:res|user|https?|file):\/\//.test(s)) return false;
  return countLetters(s) >= 2;
}

/** Remove HTML/XML-ish tags such as <b>, </i>, <color=#fff>, <br/>. */
export function stripAngleTags(s: string): string {
  return s.replace(/<\/?[A-Za-z][^<>\n]{0,200}>/g, "");
}

/** Replace common HTML entities (for formats that embed HTML fragments in plain strings). */
export function decodeBasicEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|apos|nbsp|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (_m, e: string) => {
    switch (e) {
      case "amp": return "&";
      case "lt": return "<";
      case "gt": return ">";
      case "quot": return '"';
      case "apos": return "'";
      case "nbsp": return " ";
    }
    const code = e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
  });
}

/** Decode backslash escapes of a C-family string body (\n, \t, \", \\, \uXXXX, \xXX). */
export function unescapeBackslashes(s: string): string {
  if (!s.includes("\\")) return s;
  return s.replace(/\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|.)/gs, (_m, e: string) => {
    switch (e[0]) {
      case "n": return "\n";
      case "r": return "";
      case "t": return "\t";
      case "0": return "";
      case "u":
      case "U":
      case "x": {
        const hex = e[1] === "{" ? e.slice(2, -1) : e.slice(1);
        if (!hex) return e;
        const code = parseInt(hex, 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : "";
      }
      default: return e;
    }
  });
}

/** The first `n` code points of `s` (never splits a surrogate pair). */
export function firstChars(s: string, n: number): string {
  let i = 0;
  let count = 0;
  while (i < s.length && count < n) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
    count++;
  }
  return s.slice(0, i);
}

// Engine markup: BBCode and Daggerfall-style text codes, Unity rich text, Twine macros, wiki links.
const CLOSING_CODE_RE = /\[\/[A-Za-z]+(?:=[^\]\n]{0,40})?\]/g;
const BBCODE_RE = /\[(?:b|i|u|s|center|left|right|color|colour|size|font|url|img|quote|code|wave|shake|rainbow|tornado|fade|pulse|outline|indent|p|br|ghost|matrix|cell|table|hint|lang|bgcolor|fgcolor)(?:=[^\]\n]{0,60})?\]/gi;
const ANGLE_CODE_RE = /<(?:ce|--->|-{3,}>|\/?[A-Za-z][^<>\n]{0,200})>/g;
const TWINE_MACRO_RE = /\((?:[a-z][\w-]*):[^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)\[?/g;
const WIKI_LINK_RE = /\[\[([^\]|\n]{1,200})(?:\|([^\]\n]{1,200}))?\]\]/g;

/** Text without engine markup: tags and codes removed, wiki links and template names kept as their words. */
export function stripGameMarkup(s: string): string {
  if (!/[[<(@]/.test(s)) return s;
  let t = s;
  if (t.includes("[[")) t = t.replace(WIKI_LINK_RE, (_m, target: string, alias?: string) => (alias ?? target.split("#")[0]).replace(/[-_]/g, " "));
  if (t.includes("[")) t = t.replace(CLOSING_CODE_RE, "").replace(BBCODE_RE, "");
  if (t.includes("<")) t = t.replace(ANGLE_CODE_RE, "");
  if (t.includes("(")) t = t.replace(TWINE_MACRO_RE, "");
  if (t.includes("@")) t = t.replace(/@([A-Za-z][A-Za-z_]{1,40})@/g, (_m, w: string) => w.replace(/_/g, " "));
  return t;
}
