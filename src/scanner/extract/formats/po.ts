import type { SectionCollector } from "../SectionCollector.ts";
import { MIN_LETTERS, SKIP, countLetters, unescapeBackslashes } from "../text.ts";
import { headline } from "./csv.ts";

interface PoEntry {
  msgctxt?: string;
  msgid?: string;
  msgidPlural?: string;
  msgstr: string[];
  obsolete: boolean;
  line: number;
}

/** Parse gettext PO entries (multi-line strings, plurals, contexts). Throws on a line it cannot read. */
export function parsePo(content: string): PoEntry[] {
  const entries: PoEntry[] = [];
  let cur: PoEntry | null = null;
  let append: ((s: string) => void) | null = null;
  const lines = content.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i].trim();
    let obsolete = false;
    if (line.startsWith("#~")) {
      obsolete = true;
      line = line.slice(2).trim();
    } else if (line === "" || line.startsWith("#")) {
      append = null;
      continue;
    }
    const kw = /^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+"((?:[^"\\]|\\.)*)"$/.exec(line);
    if (kw) {
      const [, key, index, value] = kw;
      if (key === "msgctxt" || key === "msgid") {
        // msgctxt or msgid after a complete msgid starts the next entry.
        if (!cur || cur.msgid !== undefined) {
          if (cur) entries.push(cur);
          cur = { msgstr: [], obsolete, line: i + 1 };
        }
      } else if (!cur || cur.msgid === undefined) {
        throw new Error(`${key} without msgid at line ${i + 1}`);
      }
      const e: PoEntry = cur;
      e.obsolete ||= obsolete;
      if (key === "msgctxt") {
        e.msgctxt = value;
        append = (s) => (e.msgctxt += s);
      } else if (key === "msgid") {
        e.msgid = value;
        append = (s) => (e.msgid += s);
      } else if (key === "msgid_plural") {
        e.msgidPlural = value;
        append = (s) => (e.msgidPlural += s);
      } else {
        const idx = index ? Number(index) : 0;
        e.msgstr[idx] = value;
        append = (s) => (e.msgstr[idx] += s);
      }
      continue;
    }
    const cont = /^"((?:[^"\\]|\\.)*)"$/.exec(line);
    if (cont && append) {
      append(cont[1]);
      continue;
    }
    throw new Error(`unexpected line ${i + 1}: ${line.slice(0, 60)}`);
  }
  if (cur) entries.push(cur);
  return entries;
}

/**
 * gettext PO/POT: one quiet section per entry. The text is the source string (msgid) unless
 * it is a key such as "npc.garrick.bio", in which case it is the translation (msgstr);
 * the title is msgctxt, else a key-like msgid. The header entry is metadata.
 */
export function extractPo(content: string, out: SectionCollector): void {
  let entries: PoEntry[];
  try {
    entries = parsePo(content);
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return;
  }
  // A catalogue lists a source file's strings in order, so consecutive prose entries with no
  // key are one passage (a logbook page's heading and its paragraphs), cut at PASSAGE_CHARS and titled
  // by the heading-like entry that opened it, not one "<file> #n" candidate per paragraph.
  let passage: string[] = [];
  let passageTitle: string | null = null;
  let size = 0;
  const flush = () => {
    if (passage.length) out.add({ title: passageTitle ?? headline(passage[0]), text: passage.join("\n\n"), kind: "po-entry", quiet: true });
    passage = [];
    passageTitle = null;
    size = 0;
  };
  for (const e of entries) {
    if (e.obsolete) continue;
    const msgid = unescapeBackslashes(e.msgid ?? "");
    const msgstr = unescapeBackslashes(e.msgstr.find((s) => s) ?? "");
    if (msgid === "") {
      out.skip("PO header", SKIP.metadata);
      continue;
    }
    const keyLike = isKeyLike(msgid);
    const text = keyLike ? msgstr : msgid;
    const title = e.msgctxt ? unescapeBackslashes(e.msgctxt) : keyLike ? msgid : null;
    if (title === null && countLetters(text, MIN_LETTERS) >= MIN_LETTERS) {
      if (size + text.length > PASSAGE_CHARS) flush();
      passage.push(text);
      size += text.length;
      continue;
    }
    if (title === null && isHeading(text)) {
      flush();
      passageTitle = text.trim();
      passage.push(text.trim());
      continue;
    }
    out.add({ title, text, kind: "po-entry", quiet: true, groupKey: title && isKeyLike(title) ? title : undefined });
  }
  flush();
}

const PASSAGE_CHARS = 4000;

/** "20th November 1740", "The Black Hand": a short line with no sentence punctuation reads as a heading. */
function isHeading(text: string): boolean {
  const t = text.trim();
  return t.length >= 3 && t.length <= 60 && !t.includes("\n") && !/[.!?:;,…]$/.test(t) && /^[\p{Lu}\d]/u.test(t) && /\p{L}/u.test(t);
}

/** "npc.garrick.bio", "GREETING_1": an identifier, not words. */
export function isKeyLike(s: string): boolean {
  return s.length <= 120 && /^[\w.:/-]+$/.test(s) && /[._:/-]|^[A-Z0-9_]+$/.test(s);
}
