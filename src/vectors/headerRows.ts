import { rowChunkIndex, rowCount, rowId, rowLocation, rowName, rowTags, type DocumentBlock } from "./cacheBlocks.ts";
import type { FullVectors } from "./fullVectors.ts";

/**
 * How a snapshot file's header (a rows' file's, or a tail segment's: cacheSnapshot.ts, rowsTail.ts) lists its rows
 * apart from their vectors, and how a load reads them back.
 *
 * Files are written with the rows column by column (`cols`): a few arrays for all the documents, each row's id in
 * one string of all ids. Files written before list them document by document (`docs`: an object and five arrays
 * a document), and still load. Why the change: parsing the per-document header of 100,000 documents made ~900,000
 * short-lived objects at every cold start, and the runtime's heap kept the room they took (bench/rss-account.ts).
 * A file written here carries `docs: []` beside `cols`, so code from before finds no rows in it and loads the
 * project from LanceDB instead of misreading it.
 */

/** A document's rows apart from their vectors, as files written before list them (strings as numbers in the table). */
export interface HeaderDoc {
  d: string;
  ids: string[];
  name: number[];
  loc: number[];
  ci: number[];
  tags: number[][];
  /** 1 when the cache kept the document's rows in 4 bits (its int8 codes in the file are those, made back) */
  p?: 1;
}

/** The rows apart from their vectors, column by column (strings as numbers in the header's table). */
export interface HeaderCols {
  /** per document: its id and row count; the documents whose rows the cache kept in 4 bits */
  d: string[];
  n: number[];
  p: number[];
  /** every row's id end to end, and each one's length */
  ids: string;
  il: number[];
  /** per row: its name, its location (-1: none), its chunk number, its tag set */
  name: number[];
  loc: number[];
  ci: number[];
  ts: number[];
  /** the distinct tag sets */
  sets: number[][];
}

/** What a header holds of the rows (one or the other is filled: `docs` in files written before `cols`). */
export interface HeaderRowsPart {
  strings: string[];
  docs: HeaderDoc[];
  cols?: HeaderCols;
}

/** The rows of one file (a rows' file, or a segment of its tail): fields row by row, codes and scales in memory, float32 rows in the file. */
export interface FileRows {
  strings: string[];
  /** row i's id, name and location (string numbers, -1: none), chunk number, tags (string numbers) */
  id(i: number): string;
  name: ArrayLike<number>;
  loc: ArrayLike<number>;
  ci: ArrayLike<number>;
  tags(i: number): readonly number[];
  codes: Int8Array;
  scales: Float32Array;
  /** every row's float32 vector, in the file (null: the file has none) */
  full: FullVectors | null;
  dims: number;
}

/** A document of a file: rows `at` … `at + n` of the file's. */
export interface SnapshotDoc {
  documentId: string;
  src: FileRows;
  at: number;
  n: number;
  /** what the file says of its rows being 4-bit (nothing in files written before 4-bit rows) */
  packed?: boolean;
}

/** The header's rows of these blocks: strings shared in one table, the rows column by column. */
export function encodeRows(blocks: DocumentBlock[]): { strings: string[]; docs: HeaderDoc[]; cols: HeaderCols; rows: number; hasFull: boolean } {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const str = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  const sets: number[][] = [];
  const setOf = new Map<string, number>();
  const cols: HeaderCols = { d: [], n: [], p: [], ids: "", il: [], name: [], loc: [], ci: [], ts: [], sets };
  const ids: string[] = [];
  let rows = 0;
  blocks.forEach((b, k) => {
    const n = rowCount(b);
    rows += n;
    cols.d.push(b.documentId);
    cols.n.push(n);
    if (b.packed) cols.p.push(k);
    for (let r = 0; r < n; r++) {
      const id = rowId(b, r);
      ids.push(id);
      cols.il.push(id.length);
      cols.name.push(str(rowName(b, r)));
      const l = rowLocation(b, r);
      cols.loc.push(l === null ? -1 : str(l));
      cols.ci.push(rowChunkIndex(b, r));
      const tags = rowTags(b, r).map(str);
      const key = tags.join(",");
      let s = setOf.get(key);
      if (s === undefined) {
        s = sets.length;
        sets.push(tags);
        setOf.set(key, s);
      }
      cols.ts.push(s);
    }
  });
  cols.ids = ids.join("");
  const hasFull = blocks.length > 0 && blocks.every((b) => b.full !== null);
  return { strings, docs: [], cols, rows, hasFull };
}

/** Row counts per document as a header lists them (for a check against the blocks just saved), or null when malformed. */
export function headerDocCounts(h: HeaderRowsPart): { d: string; n: number }[] | null {
  if (h.cols && Array.isArray(h.cols.d) && Array.isArray(h.cols.n)) return h.cols.d.map((d, k) => ({ d, n: h.cols!.n[k] }));
  if (!Array.isArray(h.docs)) return null;
  return h.docs.map((x) => ({ d: x?.d, n: Array.isArray(x?.ids) ? x.ids.length : -1 }));
}

/** The rows a header lists in all (-1 when malformed). */
export function headerRowCount(h: HeaderRowsPart): number {
  const counts = headerDocCounts(h);
  if (!counts) return -1;
  let n = 0;
  for (const c of counts) {
    if (!Number.isInteger(c.n) || c.n < 0) return -1;
    n += c.n;
  }
  return n;
}

/**
 * A header's documents over a file's codes, scales and float32 rows; null when the header lists another number of
 * rows than the sections hold, or anything is malformed (the load then goes to LanceDB). `packedKnown`: the file says
 * which documents were 4-bit (files written before 4-bit rows say nothing: the cache then decides from the codes).
 */
export function decodeRows(h: HeaderRowsPart, codes: Int8Array, scales: Float32Array, full: FullVectors | null, dims: number, packedKnown: boolean): SnapshotDoc[] | null {
  const strings = h.strings;
  if (!Array.isArray(strings)) return null;
  const rows = scales.length;
  if (codes.length !== rows * dims) return null;
  const known = (i: number, min: number) => Number.isInteger(i) && i >= min && i < strings.length;
  let src: FileRows;
  const docs: SnapshotDoc[] = [];
  if (h.cols) {
    const c = h.cols;
    const arrays = [c.d, c.n, c.p, c.il, c.name, c.loc, c.ci, c.ts, c.sets];
    if (!arrays.every(Array.isArray) || typeof c.ids !== "string" || c.n.length !== c.d.length) return null;
    if (![c.il, c.name, c.loc, c.ci, c.ts].every((a) => a.length === rows)) return null;
    for (const set of c.sets) if (!Array.isArray(set) || !set.every((t) => known(t, 0))) return null;
    const idEnd = new Uint32Array(rows);
    let end = 0;
    for (let i = 0; i < rows; i++) {
      if (!Number.isInteger(c.il[i]) || c.il[i] < 0 || !known(c.name[i], 0) || !known(c.loc[i], -1) || !Number.isInteger(c.ci[i]) || !Number.isInteger(c.ts[i]) || c.ts[i] < 0 || c.ts[i] >= c.sets.length) return null;
      idEnd[i] = end += c.il[i];
    }
    if (end !== c.ids.length) return null;
    const ids = c.ids;
    src = { strings, id: (i) => ids.slice(i === 0 ? 0 : idEnd[i - 1], idEnd[i]), name: c.name, loc: c.loc, ci: c.ci, tags: (i) => c.sets[c.ts[i]], codes, scales, full, dims };
    const packed = new Set(c.p);
    let at = 0;
    for (let k = 0; k < c.d.length; k++) {
      const n = c.n[k];
      if (typeof c.d[k] !== "string" || !Number.isInteger(n) || n < 0) return null;
      docs.push({ documentId: c.d[k], src, at, n, ...(packed.has(k) ? { packed: true } : packedKnown ? { packed: false } : {}) });
      at += n;
    }
    return at === rows ? docs : null;
  }
  // a file written before: its documents' fields flattened into rows
  if (!Array.isArray(h.docs)) return null;
  const ids: string[] = [];
  const name: number[] = [];
  const loc: number[] = [];
  const ci: number[] = [];
  const tags: number[][] = [];
  for (const d of h.docs) {
    const n = Array.isArray(d?.ids) ? d.ids.length : -1;
    if (n < 0 || typeof d.d !== "string" || !Array.isArray(d.name) || !Array.isArray(d.loc) || !Array.isArray(d.ci) || !Array.isArray(d.tags)) return null;
    if (d.name.length !== n || d.loc.length !== n || d.ci.length !== n || d.tags.length !== n) return null;
    for (let i = 0; i < n; i++) {
      if (typeof d.ids[i] !== "string" || !known(d.name[i], 0) || !known(d.loc[i], -1) || !Number.isInteger(d.ci[i]) || !Array.isArray(d.tags[i]) || !d.tags[i].every((t) => known(t, 0))) return null;
      ids.push(d.ids[i]);
      name.push(d.name[i]);
      loc.push(d.loc[i]);
      ci.push(d.ci[i]);
      tags.push(d.tags[i]);
    }
  }
  if (ids.length !== rows) return null;
  src = { strings, id: (i) => ids[i], name, loc, ci, tags: (i) => tags[i], codes, scales, full, dims };
  let at = 0;
  for (const d of h.docs) {
    docs.push({ documentId: d.d, src, at, n: d.ids.length, ...(d.p === 1 ? { packed: true } : packedKnown ? { packed: false } : {}) });
    at += d.ids.length;
  }
  return docs;
}
