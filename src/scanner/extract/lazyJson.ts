/**
 * A big JSON file read a container at a time (to bound memory): JSON.parse of an 8 MB dialogue
 * database builds ~100 MB of objects at once; read lazily, only the container being walked is
 * parsed. A LazyJson is a span of the file's text not parsed yet; `open` parses a small span
 * whole and a big container shallowly: its strings, numbers, booleans and nulls parsed, its
 * containers left as LazyJson spans for the walker (walkStructured.ts) to open in turn — or to
 * open at once where a field's meaning needs the value (a text field's list of lines).
 */

/** Spans up to this many characters are parsed whole when opened. */
export const PARSE_WHOLE_CHARS = 64 * 1024;

export class LazyJson {
  readonly isArray: boolean;

  constructor(
    private readonly text: string,
    private readonly start: number,
    private readonly end: number,
    private readonly parseWhole = PARSE_WHOLE_CHARS,
  ) {
    this.isArray = text.charCodeAt(skipSpace(text, start)) === LBRACKET;
  }

  /** The whole text as a lazily read value (`parseWhole` is lowered only by tests, to make every level lazy). */
  static of(text: string, parseWhole = PARSE_WHOLE_CHARS): LazyJson {
    return new LazyJson(text, 0, text.length, parseWhole);
  }

  /** Characters of the span. */
  get chars(): number {
    return this.end - this.start;
  }

  /** The value: parsed whole when small, else a shallow object or array whose containers are LazyJson. */
  open(): unknown {
    const { text, parseWhole } = this;
    const start = skipSpace(text, this.start);
    const end = this.end;
    const open = text.charCodeAt(start);
    if (end - start <= parseWhole || (open !== LBRACE && open !== LBRACKET)) return JSON.parse(text.slice(start, end));
    const member = (s: number, e: number): unknown => {
      const c = text.charCodeAt(s);
      return c === LBRACE || c === LBRACKET ? new LazyJson(text, s, e, parseWhole) : JSON.parse(text.slice(s, e));
    };
    if (open === LBRACKET) {
      const items: unknown[] = [];
      forEachMember(text, start, end, false, (_k, s, e) => items.push(member(s, e)));
      return items;
    }
    const obj: Record<string, unknown> = {};
    forEachMember(text, start, end, true, (k, s, e) => (obj[k!] = member(s, e)));
    return obj;
  }
}

/** A value that may be a LazyJson, opened (anything else as it is). */
export function opened(v: unknown): unknown {
  return v instanceof LazyJson ? v.open() : v;
}

const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** Index just past the string starting at `i` (a quote). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  throw new SyntaxError("Unterminated string in JSON");
}

/** Index just past the value starting at `i`. */
function valueEnd(text: string, i: number, limit: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c === LBRACE || c === LBRACKET) {
    let depth = 0;
    for (let j = i; j < limit; j++) {
      const d = text.charCodeAt(j);
      if (d === QUOTE) j = stringEnd(text, j) - 1;
      else if (d === LBRACE || d === LBRACKET) depth++;
      else if (d === RBRACE || d === RBRACKET) {
        if (--depth === 0) return j + 1;
      }
    }
    throw new SyntaxError("Unbalanced brackets in JSON");
  }
  // A number, true, false or null: up to the next separator (JSON.parse checks the token itself).
  let j = i;
  for (; j < limit; j++) {
    const d = text.charCodeAt(j);
    if (d === COMMA || d === RBRACE || d === RBRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
  }
  if (j === i) throw new SyntaxError(`Unexpected character in JSON at position ${i}`);
  return j;
}

/** Calls `fn` with each member's key (objects) and value span of the container text[start, end). */
function forEachMember(text: string, start: number, end: number, isObject: boolean, fn: (key: string | null, s: number, e: number) => void): void {
  const close = isObject ? RBRACE : RBRACKET;
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === close) return;
  for (;;) {
    let key: string | null = null;
    if (isObject) {
      if (text.charCodeAt(i) !== QUOTE) throw new SyntaxError(`Expected a key in JSON at position ${i}`);
      const k = stringEnd(text, i);
      key = JSON.parse(text.slice(i, k)) as string;
      i = skipSpace(text, k);
      if (text.charCodeAt(i) !== COLON) throw new SyntaxError(`Expected ':' in JSON at position ${i}`);
      i = skipSpace(text, i + 1);
    }
    const e = valueEnd(text, i, end);
    fn(key, i, e);
    i = skipSpace(text, e);
    const c = text.charCodeAt(i);
    if (c === close) return;
    if (c !== COMMA) throw new SyntaxError(`Expected ',' in JSON at position ${i}`);
    i = skipSpace(text, i + 1);
  }
}
