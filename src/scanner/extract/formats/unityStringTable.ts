import type { SectionCollector } from "../SectionCollector.ts";
import { usableTitle } from "../fieldNames.ts";
import { countLetters } from "../text.ts";
import { headline } from "./csv.ts";
import { isStatText } from "../techText.ts";

/**
 * Unity Localization string tables: a locale table (`m_TableData: - m_Id / m_Localized`)
 * holds the texts, its collection's "Shared Data" asset (`m_Entries: - m_Id / m_Key`) the keys.
 * Read line by line, not through a YAML parser: tables run to megabytes (the parser took a second
 * per table) and Unity writes quoted scalars a strict parser rejects (a closing quote at column 0).
 */

/** `m_TableData:` with `m_Localized` entries: a locale's string table. */
export function isUnityStringTable(content: string): boolean {
  const head = content.slice(0, 4096);
  return /^\s*m_TableData:\s*$/m.test(head) && /^\s*m_LocaleId:|^\s*m_SharedData:/m.test(head) && content.includes("m_Localized:");
}

/** `m_Entries:` with `m_Key` and a table collection name: a collection's shared keys. */
export function isUnitySharedTableData(content: string): boolean {
  const head = content.slice(0, 4096);
  return /^\s*m_TableCollectionName:/m.test(head) && /^\s*m_Entries:\s*$/m.test(head);
}

/** The collection a table belongs to: its m_TableCollectionName, or its m_Name without the locale suffix. */
export function stringTableCollection(content: string): string | null {
  const head = content.slice(0, 4096);
  const named = /^\s*m_TableCollectionName:\s*(.+?)\s*$/m.exec(head)?.[1];
  if (named) return unquote(named);
  const name = /^\s*m_Name:\s*(.+?)\s*$/m.exec(head)?.[1];
  return name ? unquote(name).replace(/[ _](?:[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?)$/, "") : null;
}

/** id → key of a Shared Data asset. */
export function readSharedKeys(content: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const [id, key] of readEntries(content, "m_Key")) keys.set(id, key);
  return keys;
}

/**
 * One locale table: entries whose keys share a stem join into one candidate (SectionCollector's
 * key groups); without keys (or numeric ones) long entries are read as consecutive passages and
 * short ones listed with the file's short entries.
 */
export function extractUnityStringTable(content: string, out: SectionCollector, keys?: Map<string, string> | null): void {
  let any = false;
  // Entries with neither a key name nor a heading (message tables keyed by number) are read as
  // consecutive passages of about CHUNK_CHARS, as CSV string tables are, not one candidate each.
  let chunk: string[] = [];
  let size = 0;
  const flush = () => {
    if (chunk.length) out.add({ title: headline(chunk[0]), text: chunk.join("\n\n"), kind: "keyed-entry" });
    chunk = [];
    size = 0;
  };
  for (const [id, text] of readEntries(content, "m_Localized")) {
    any = true;
    const key = keys?.get(id) ?? null;
    const keyTitle = key && usableTitle(key) ? key : null;
    if (keyTitle) {
      out.add({ title: keyTitle, text, kind: "keyed-entry", quiet: true, groupKey: keyTitle });
      continue;
    }
    // As a CSV string table keyed by number reads (formats/csv.ts), so the two copies of one table merge.
    // A stat template (a spell effect's Duration/Chance/Magnitude) goes alone, where it is counted as mechanics.
    if (countLetters(text) < 40 || isStatText(text)) out.add({ title: null, text, kind: "keyed-entry", quiet: true });
    else {
      if (size + text.length > CHUNK_CHARS) flush();
      chunk.push(text);
      size += text.length;
    }
  }
  flush();
  if (!any) out.skipFile("No prose found");
}

const CHUNK_CHARS = 4000;

/** [m_Id, value of `field`] of every `- m_Id:` entry, values decoded as YAML scalars (plain, '…' or "…", multi-line). */
export function* readEntries(content: string, field: string): Generator<[string, string]> {
  const n = content.length;
  let pos = 0;
  let id: string | null = null;
  const marker = `${field}:`;
  while (pos < n) {
    let end = content.indexOf("\n", pos);
    if (end < 0) end = n;
    const line = content.slice(pos, end);
    const t = line.trimStart();
    if (t.startsWith("- m_Id:")) id = t.slice(7).trim();
    else if (id !== null && t.startsWith(marker)) {
      const indent = line.length - t.length;
      const start = pos + indent + marker.length;
      const [value, next] = readScalar(content, start, indent);
      if (value.trim()) yield [id, value];
      id = null;
      pos = next;
      continue;
    }
    pos = end + 1;
  }
}

/** A YAML scalar starting at `from` (after "key:"), returning its value and the offset after it. */
function readScalar(s: string, from: number, keyIndent: number): [string, number] {
  let i = from;
  while (s[i] === " " || s[i] === "\t") i++;
  const q = s[i];
  if (q === "'" || q === '"') return readQuoted(s, i + 1, q);
  // Plain scalar: this line, plus following lines indented deeper than the key.
  let end = s.indexOf("\n", i);
  if (end < 0) end = s.length;
  const lines = [s.slice(i, end).trim()];
  let pos = end + 1;
  while (pos < s.length) {
    let e = s.indexOf("\n", pos);
    if (e < 0) e = s.length;
    const line = s.slice(pos, e);
    const t = line.trimStart();
    if (t && line.length - t.length <= keyIndent) break;
    lines.push(t.trimEnd());
    pos = e + 1;
  }
  return [fold(lines), pos];
}

function readQuoted(s: string, from: number, q: string): [string, number] {
  let raw = "";
  let i = from;
  for (;;) {
    const j = s.indexOf(q, i);
    if (j < 0) {
      raw += s.slice(i);
      i = s.length;
      break;
    }
    if (q === "'" && s[j + 1] === "'") {
      raw += s.slice(i, j) + "\u0000";
      i = j + 2;
      continue;
    }
    if (q === '"') {
      let bs = 0;
      for (let k = j - 1; k >= i && s[k] === "\\"; k--) bs++;
      if (bs % 2 === 1) {
        raw += s.slice(i, j + 1);
        i = j + 1;
        continue;
      }
    }
    raw += s.slice(i, j);
    i = j + 1;
    break;
  }
  let next = s.indexOf("\n", i);
  next = next < 0 ? s.length : next + 1;
  // Line folding: a single line break is a space, each blank line a newline; the lines' indentation is not content.
  const lines = raw.split("\n").map((l, k) => (k === 0 ? l.trimEnd() : l.trim()));
  let value = fold(lines);
  if (q === "'") value = value.replace(/\u0000/g, "'");
  else value = unescapeDouble(value);
  return [value, next];
}

function fold(lines: string[]): string {
  let out = "";
  let pendingBreaks = 0;
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k];
    if (k > 0 && l === "") {
      pendingBreaks++;
      continue;
    }
    if (k > 0) out += pendingBreaks ? "\n".repeat(pendingBreaks) : out.endsWith("\\") ? "" : " ";
    pendingBreaks = 0;
    out += l;
  }
  return out.replace(/\r/g, "");
}

function unescapeDouble(v: string): string {
  return v.replace(/\\(u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|.)/g, (_m, e: string) => {
    if (e[0] === "u" || e[0] === "x") return String.fromCharCode(parseInt(e.slice(1), 16));
    return e === "n" ? "\n" : e === "t" ? "\t" : e === "r" ? "" : e === "0" ? "" : e === " " ? " " : e === "\n" ? "" : e;
  }).replace(/\r/g, "");
}

function unquote(v: string): string {
  return v.replace(/^(["'])(.*)\1$/, "$2");
}
