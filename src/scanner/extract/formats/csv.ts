import type { SectionCollector } from "../SectionCollector.ts";
import { isStatText } from "../techText.ts";
import { isTextKey, titleRank, usableTitle } from "../fieldNames.ts";
import { SKIP, countDigits, countLetters } from "../text.ts";

/**
 * RFC 4180 reader: quoted fields may hold the delimiter, newlines and doubled quotes.
 * Single pass, so multi-megabyte sheets stay linear. Throws on an unterminated quote.
 */
export function readDelimited(content: string, delimiter: string, quoting = true): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = content.charCodeAt(0) === 0xfeff ? 1 : 0;
  let atFieldStart = true;
  const n = content.length;
  while (i < n) {
    const c = content[i];
    if (quoting && atFieldStart && c === '"') {
      const start = i;
      i++;
      let value = "";
      for (;;) {
        const q = content.indexOf('"', i);
        if (q < 0) throw new Error(`unterminated quoted field starting at offset ${start}`);
        value += content.slice(i, q);
        if (content[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      field = value;
      atFieldStart = false;
      // Anything between the closing quote and the next delimiter is kept, as most readers do.
      continue;
    }
    if (c === delimiter) {
      row.push(field);
      field = "";
      atFieldStart = true;
      i++;
    } else if (c === "\n" || c === "\r") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      atFieldStart = true;
      i += c === "\r" && content[i + 1] === "\n" ? 2 : 1;
    } else {
      // Copy the unquoted run up to the next delimiter or line break in one slice.
      let j = i;
      while (j < n && content[j] !== delimiter && content[j] !== "\n" && content[j] !== "\r") j++;
      field += content.slice(i, j);
      atFieldStart = false;
      i = j;
    }
  }
  if (!atFieldStart || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0].trim() === ""));
}

/**
 * CSV / TSV: the first row is the header. Each data row becomes a section titled by its
 * name/title-like column, with the text-like columns (description, lore, dialogue …) as text;
 * without any text-like header, the column holding the most letters is the text.
 */
export function extractDelimited(content: string, delimiter: string, out: SectionCollector): void {
  let rows: string[][];
  try {
    rows = readDelimited(content, delimiter);
  } catch (e) {
    // TSV has no quoting rule of its own: a stray quote in a tab-separated line is just text.
    if (delimiter !== "\t") {
      out.skipFile(SKIP.parse((e as Error).message));
      return;
    }
    rows = readDelimited(content, delimiter, false);
  }
  if (rows.length < 2) {
    out.skipFile(rows.length === 0 ? SKIP.empty : SKIP.noProse);
    return;
  }
  const header = rows[0].map((h) => h.trim());
  const data = rows.slice(1);

  let titleCol = -1;
  let bestRank = Infinity;
  header.forEach((h, i) => {
    const r = titleRank(h);
    if (r >= 0 && r < bestRank) {
      bestRank = r;
      titleCol = i;
    }
  });
  let textCols = header.map((h, i) => i).filter((i) => i !== titleCol && isTextKey(header[i]));
  if (textCols.length === 0) {
    const letters = header.map((_, i) => (i === titleCol ? -1 : data.reduce((sum, r) => sum + countLetters(r[i] ?? ""), 0)));
    const best = letters.indexOf(Math.max(...letters));
    if (best >= 0 && letters[best] > 0) textCols = [best];
  }

  // A sheet of numbers (stats, curves) is one skip, not one per row.
  const sample = data.slice(0, 200).flat().join(" ");
  const digits = countDigits(sample);
  if (digits > countLetters(sample) && digits >= 20) {
    out.skipFile(SKIP.numeric);
    return;
  }
  if (textCols.length === 0) {
    out.skipFile(SKIP.noProse);
    return;
  }

  // Rows keyed by numbers only (a string table's ids) say nothing of what they hold: long ones are
  // read as consecutive passages of about CHUNK_CHARS, titled by the first one's first line;
  // short ones (names, labels) go to the file's list of short entries.
  const keyedTitles = titleCol >= 0 && /^(?:key|id|keys|ids|stringid|entryid)$/.test(header[titleCol].toLowerCase().replace(/[^a-z]/g, ""));
  let chunk: string[] = [];
  let size = 0;
  const flush = () => {
    if (chunk.length) out.add({ title: headline(chunk[0]), text: chunk.join("\n\n"), kind: "csv-row" });
    chunk = [];
    size = 0;
  };
  for (const r of data) {
    const text = textCols
      .map((i) => (r[i] ?? "").trim())
      .filter(Boolean)
      .join("\n\n");
    const title = titleCol >= 0 ? usableTitle(r[titleCol]) : null;
    if (title || countLetters(text) < 40 || isStatText(text)) out.add({ title, text, kind: "csv-row", keyed: keyedTitles, groupKey: title ?? undefined });
    else {
      if (size + text.length > CHUNK_CHARS) flush();
      chunk.push(text);
      size += text.length;
    }
  }
  flush();
}

const CHUNK_CHARS = 4000;

/** The first line of a passage when it reads as a heading ("Water Breathing[/center]"), else null. */
export function headline(text: string): string | null {
  const first = text.split(/\n|\[\/(?:center|left|right)\]/)[0].replace(/\[[^\]]*\]|<[^>]*>/g, "").trim();
  return first.length >= 3 && first.length <= 60 && /\p{L}/u.test(first) ? first : null;
}
