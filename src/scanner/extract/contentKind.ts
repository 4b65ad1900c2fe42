/**
 * What a whole text file is, read from its content when its path says nothing (issue: review-grade on
 * projects the scanner was never tuned on): a runtime log, a configuration file, a table of game data,
 * or prose about the tool itself. Each check reads at most the first lines it needs.
 */

const SAMPLE_LINES = 200;

function firstLines(content: string, max = SAMPLE_LINES): string[] {
  const out: string[] = [];
  let start = 0;
  while (out.length < max && start < content.length) {
    let end = content.indexOf("\n", start);
    if (end < 0) end = content.length;
    const line = content.slice(start, end).trim();
    if (line) out.push(line);
    start = end + 1;
  }
  return out;
}

// 2025-11-11 16:13:41, [12:03:55], Tue Nov 11 16:13:40 2025: a line stamped with a date or a clock time.
const STAMP_RE = /^(?:[-=#*\s[(]*)?(?:\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}|\d{1,2}:\d{2}:\d{2}\b|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} \d{1,2}:\d{2})/;

/**
 * A runtime log (a game's play log, a console dump): five or more of its first lines, and one in twenty,
 * start with a date and a clock time. Prose dates its entries by day, not to the second; a play log may
 * copy the story's lines between its stamps, which is why one in twenty is enough.
 */
export function looksLikeLog(content: string): boolean {
  const lines = firstLines(content);
  let stamped = 0;
  for (const l of lines) if (STAMP_RE.test(l)) stamped++;
  return stamped >= 5 && stamped >= lines.length / 20;
}

// name = value, name += value, name: value, OPTION=value, [section], Action, Key (a key binding): a settings line.
const SETTING_RE =
  /^(?:[A-Za-z_][\w.\-[\]]*\s*(?:[+\-^:]?=)\s*\S|\[[\w .-]+\]$|[a-z_][\w.-]*\s*:\s*[\w"'<>{}$%.+-]+$|[A-Za-z_]\w*,\s*(?:[A-Z0-9]|F\d{1,2}|Tab|Return|Enter|Backspace|Escape|Esc|Space|Delete|Insert|Home|End|Page ?Up|Page ?Down|Up|Down|Left|Right|(?:Left|Right)?(?:Shift|Ctrl|Control|Alt))$)/;
const COMMENT_RE = /^(?:#|;|\/\/|--)/;

/**
 * A configuration file in .txt clothes (an auto-pickup list, a bot's settings): most lines that are
 * not comments are settings, and the comments do not read as a story (sentences are rare).
 */
export function looksLikeConfig(content: string): boolean {
  const lines = firstLines(content);
  let settings = 0;
  let others = 0;
  for (const l of lines) {
    if (COMMENT_RE.test(l)) continue;
    if (SETTING_RE.test(l)) settings++;
    else others++;
  }
  return settings >= 5 && settings >= 2 * others;
}

const NUMERIC_CELL_RE = /^(?:[-+]?\d+(?:\.\d+)?%?|[-+]?\.\d+|true|false|null|none|[a-z]+(?:_[a-z0-9]+)+|[A-Za-z]*\d+[A-Za-z\d_]*|[\w-]+\.(?:png|jpg|ogg|wav|mp3|webp))$/i;

/**
 * A table of game data (skills, outfits, drop rates): rows of five or more cells of which at least
 * two in five are numbers, flags, identifiers or asset names. Read with whichever of tab and comma
 * splits the rows into more cells (a .tsv written with commas is still a table).
 */
export function looksLikeDataTable(content: string): boolean {
  const lines = firstLines(content, 60);
  if (lines.length < 3) return false;
  const cellsBy = (d: string) => lines.map((l) => l.split(d));
  const tabs = cellsBy("\t");
  const commas = cellsBy(",");
  const width = (rows: string[][]) => rows.reduce((a, r) => a + r.length, 0) / rows.length;
  const rows = width(tabs) >= width(commas) ? tabs : commas;
  if (width(rows) >= 5 && dataShare(rows) >= 0.4) return true;
  // Records laid out one value or a few per line (an engine's .cfg exported as text: "175 0", "beautiful maiden", "?2",
  // "-2", "410"): half of the words are figures — prose, even full of dates and counts, has far fewer.
  const words = lines.map((l) => l.split(/\s+/));
  return lines.length >= 20 && words.reduce((n, w) => n + w.length, 0) >= 40 && dataShare(words) >= 0.5;
}

/** Share of a table's non-empty cells that are numbers, flags, identifiers or asset names. */
function dataShare(rows: string[][]): number {
  let cells = 0;
  let data = 0;
  for (const r of rows) {
    for (const c of r) {
      const t = c.trim().replace(/^"|"$/g, "");
      if (!t) continue;
      cells++;
      if (NUMERIC_CELL_RE.test(t)) data++;
    }
  }
  return cells > 0 ? data / cells : 0;
}

/**
 * Words of a program's manual rather than a world: options, commands, keys, windows, files. A world
 * says "the gate" and "the spell", a manual says "the option", "the default", "the window port".
 * Left out on purpose: words a story uses too (door, key, level, map, screen, message, character).
 */
const TOOL_WORD_RE =
  /\b(?:options?|defaults?|default is|commands?|command line|settings?|config(?:uration)?|boolean|parameters?|variables?|functions?|syntax|compil(?:e|ed|er|ing)|makefile|interface|window ports?|tty|curses|x11|qt|terminal|cursor|prefix|persistent|directory|directories|filenames?|buttons?|menus?|click(?:s|ed|ing)?|keyboard|keystrokes?|style propert(?:y|ies)|statements?|platforms?|windows|unix|linux|macos|mac os|ms-?dos|binary|executable|source code|bug(?:s|fix)?|patch(?:es|level)?|#define|struct|api|plugins?|editor|inspector|toolbar|tab|dialog box|checkbox|installs?|installation|version \d)\b|`\S'/gi;

/**
 * Prose about the tool itself (a game's options manual, a scripting tutorial, a dialogue tool's feature
 * tour): at least four manual words (a key written `t', a code token) and one per 18 words. Lore that names one window or one option is
 * far below that; a page of options is far above it.
 */
export function isToolText(text: string): boolean {
  const { hits, words } = toolWords(text, Infinity);
  return hits === Infinity || (words >= 12 && hits >= Math.max(4, Math.ceil(words / 18)));
}

/**
 * Manual words and code tokens in a text (counting stops at `cap`), and its length in words; a manual
 * page (NAME … SYNOPSIS … DESCRIPTION) counts as infinitely many.
 */
export function toolWords(text: string, cap: number): { hits: number; words: number } {
  const words = wordCount(text);
  if (/\bSYNOPSIS\b/.test(text) && /\bDESCRIPTION\b/.test(text)) return { hits: Infinity, words };
  const wanted = Math.min(cap, Math.max(4, Math.ceil(words / 18)));
  let hits = 0;
  TOOL_WORD_RE.lastIndex = 0;
  while (hits < wanted && TOOL_WORD_RE.exec(text)) hits++;
  // Code named in the prose counts too: status_update(), cond_hilites[], SND_LIB_QTSOUND, include/sndprocs.h.
  // Each of those holds one of these characters; most prose holds none, and the search is the costly part.
  if (hits < wanted && (text.includes("_") || text.includes("()") || text.includes("[]") || text.includes("#") || text.includes("/"))) {
    CODE_TOKEN_RE.lastIndex = 0;
    while (hits < wanted && CODE_TOKEN_RE.exec(text)) hits++;
  }
  return { hits, words };
}

/**
 * A document heading that names a part of a manual or of the project rather than of a world: "9.6. Crash Report
 * Options", "12.1. Special Thanks", "Installation", "Key bindings". The heading's last word decides ("Options" ends
 * it), so "The Thanks of the Queen" or "Options of the Guild" stay: a world's heading seldom ends in one of these.
 * Left out: "settings" and "building", which a world's wiki ends headings with ("Campaign Settings", "Ship Building").
 */
const MANUAL_HEADING_RE =
  /^(?:[\d.]+\s+)?(?:[\p{L}'-]+\s+){0,3}(?:options|preferences|configuration|installation|installing|thanks|credits|acknowledge?ments|troubleshooting|controls|key ?bindings|hotkeys|compiling|system requirements|changelog|licen[cs]e)$/iu;

export function isManualHeading(title: string): boolean {
  // A wiki page's section is titled "<page> — <heading>": the heading is what says it.
  const heading = title.slice(title.lastIndexOf(" — ") + 1).replace(/^—\s*/, "").trim();
  return heading.length <= 60 && MANUAL_HEADING_RE.test(heading);
}

/** Words separated by white space; Chinese, Japanese and Korean write none, so two of their characters count as one. */
function wordCount(text: string): number {
  let words = 0;
  let cjk = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13 || c === 12) {
      inWord = false;
      continue;
    }
    if (!inWord) words++;
    inWord = true;
    if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af)) cjk++;
  }
  return Math.max(words, cjk / 2);
}

// snake_case not followed by ":" — "nvl_narrator: …" is a speaker, not code.
const CODE_TOKEN_RE = /\b\w+\(\)|\b\w+\[\]|\b[a-z]+_[a-z_]+\b(?!\s*:)|\b[A-Z]{2,}_[A-Z_]{2,}\b|\b[\w-]+\/[\w-]+\.[ch]\b|#(?:define|include|if)\b/g;
