import type { TailRequest } from "./types.ts";

/** What marks the start of a typed turn's tail in the words: its delimiter, and JSON objects opened with its keys. */
export interface TailSign {
  /** the delimiter's visible line ("[Behaviour]"), matched without regard to case */
  marker: string;
  /** the keys a tail's objects open with (the tail's own and its actions' entries') */
  keys: string[];
}

/** Where a tail starts in some words, and from where their end may be the start of one not yet complete. */
export interface TailSignAt {
  /** the index the words end at (before the sign, and before a code fence or a blank line that opens it) */
  at: number | null;
  /** with no sign yet: the index from which the text's end could still become one (held back, not shown) */
  holdFrom: number | null;
}

/**
 * The sign of a tail request: its delimiter's marker, and the keys of its schema's objects — the tail's own
 * properties and those of the objects its arrays hold (the actions' `name` and `params`), not the parameters'
 * (those are the caller's words, and only ever written inside an action).
 */
export function tailSignOf(tail: Pick<TailRequest, "delimiter" | "jsonSchema">): TailSign {
  const keys = new Set<string>();
  const props = (s: unknown): string[] => (isObj(s) && isObj(s.properties) ? Object.keys(s.properties) : []);
  const variants = (s: unknown): unknown[] => (!isObj(s) ? [] : [s, ...["oneOf", "anyOf"].flatMap((k) => (Array.isArray(s[k]) ? (s[k] as unknown[]).flatMap(variants) : []))]);
  for (const root of variants(tail.jsonSchema)) {
    for (const key of props(root)) keys.add(key);
    const properties = isObj(root) && isObj(root.properties) ? Object.values(root.properties) : [];
    for (const p of properties.flatMap(variants)) {
      if (!isObj(p)) continue;
      for (const item of variants(p.items)) for (const key of props(item)) keys.add(key);
    }
  }
  return { marker: tail.delimiter.trim(), keys: [...keys].filter((k) => /^\w+$/.test(k)) };
}

/**
 * Where the words give way to a tail the model wrote itself: a small model copies the prompt's example into its
 * spoken line (`Very well. {"actions":[…` or `[Behaviour]`), before the grammar-constrained tail that follows. The
 * words end at the first delimiter or object opened with one of the tail's keys (`{"actions":`, `{ 'emotion' :`,
 * `{name:`), and before the code fence, the list's bracket, the blank line or the sentence ending in a colon that
 * leads into it. A brace or bracket that opens
 * anything else is speech. A streamed text's end that could still become a sign is reported as held.
 */
export function tailSignAt(text: string, sign: TailSign): TailSignAt {
  const lower = text.toLowerCase();
  const marker = sign.marker.toLowerCase();
  let at = marker ? lower.indexOf(marker) : -1;
  const keys = sign.keys.map(escape).join("|");
  if (keys) {
    const json = new RegExp(`\\{\\s*["'\`]?(?:${keys})["'\`]?\\s*:`, "i").exec(text);
    if (json && (at < 0 || json.index < at)) at = json.index;
  }
  if (at >= 0) return { at: leadIn(text, at, true), holdFrom: null };
  return { at: null, holdFrom: heldFrom(text, lower, marker, sign.keys) };
}

/** The words before a tail the model wrote into them, or all of them (trimmed at the end either way). */
export function wordsBeforeTail(text: string, sign: TailSign): string {
  const { at } = tailSignAt(text, sign);
  return at === null ? text : text.slice(0, at).trimEnd();
}

/**
 * The start of what leads into a sign at `at`: a code fence (```json), a list opened around it, the whitespace
 * before, and a sentence that announces it ("Here are my actions:"; measured on Qwen2.5-Coder-0.5B, the words
 * before a tail it wrote itself end so). Only when cutting: while streaming, such a sentence was already sent.
 */
function leadIn(text: string, at: number, announce = false): number {
  const m = /(?:`{1,3}[a-z]*\s*)?(?:\[\s*)?$/i.exec(text.slice(0, at));
  let start = m ? m.index : at;
  while (start > 0 && /\s/.test(text[start - 1])) start--;
  if (announce && text[start - 1] === ":") {
    const sentence = /(?:^|[.!?\n]\s*)[^.!?\n]*:$/.exec(text.slice(0, start));
    if (sentence) {
      start = sentence.index + (/^[.!?\n]/.test(sentence[0]) ? 1 : 0);
      while (start > 0 && /\s/.test(text[start - 1])) start--;
    }
  }
  return start;
}

/** The index from which the text's end is a sign in the making: part of the marker, `{` and part of a key, a fence. */
function heldFrom(text: string, lower: string, marker: string, keys: string[]): number | null {
  let from: number | null = null;
  const take = (i: number) => {
    const start = leadIn(text, i);
    from = from === null ? start : Math.min(from, start);
  };
  for (let n = Math.min(marker.length - 1, lower.length); n > 0; n--) {
    if (lower.endsWith(marker.slice(0, n))) {
      take(lower.length - n);
      break;
    }
  }
  // A brace with at most a key's partial name (and its quotes, spaces, colon still to come) after it.
  const open = /\{\s*["'`]?(\w*)["'`]?\s*$/.exec(text);
  if (open) {
    const part = open[1].toLowerCase();
    const closedQuote = /\w["'`]\s*$/.test(open[0]);
    if (keys.some((k) => (closedQuote ? k.toLowerCase() === part : k.toLowerCase().startsWith(part)))) take(open.index);
  }
  const fence = /`{1,3}[a-z]*\s*$/i.exec(text);
  if (fence) take(fence.index);
  return from;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
