import { DocumentBlock, normalised, packCodes, quantise, type RowMeta } from "./cacheBlocks.ts";
import type { CachedRow } from "./cacheOptions.ts";
import { OwnVectors, type FullVectors } from "./fullVectors.ts";
import type { SnapshotDoc } from "./headerRows.ts";
import { blockBytes, ColumnsBuilder } from "./rowColumns.ts";

/**
 * The int8 blocks of documents placed together (ProjectVectorCache.setDocuments, restoreDocuments): their rows in one
 * set of columns (rowColumns.ts) and their codes in one array, so a document costs one small object, not a handful of
 * strings and typed arrays of its own. `bitOf`: a tag's bit, assigned when new.
 */

const NO_TAGS: readonly string[] = [];

type Written = { documentId: string; rows: CachedRow[]; vectors: Float32Array[] };

/** Documents written (or loaded from LanceDB), none empty: quantised here, float32 kept when `withFull`. */
export function blocksFromWrites(live: readonly Written[], dims: number, withFull: boolean, bitOf: (tag: string) => number | null): DocumentBlock[] {
  const out: DocumentBlock[] = [];
  let total = 0;
  for (const d of live) total += d.rows.length;
  const codes = new Int8Array(total * dims);
  const full = withFull ? new Float32Array(total * dims) : null;
  const own = full && new OwnVectors(full, dims);
  const b = new ColumnsBuilder(total, bitOf);
  const starts = new Int32Array(live.length);
  const idChars = new Float64Array(live.length);
  live.forEach((d, k) => {
    starts[k] = b.at;
    d.rows.forEach((r, i) => {
      const at = b.at;
      b.scales[at] = quantise(d.vectors[i], dims, codes, at * dims);
      if (full) full.set(normalised(d.vectors[i], dims), at * dims);
      b.row(r.id, r.documentName, r.locationId, r.chunkIndex, r.tags);
      idChars[k] += r.id.length;
    });
  });
  const cols = b.finish();
  live.forEach((d, k) => {
    const n = d.rows.length;
    const bytes = blockBytes(cols, n, d.documentId, idChars[k]) + n * dims + (full ? n * dims * 4 : 0);
    out.push(new DocumentBlock(d.documentId, cols, starts[k], n, false, dims, codes, starts[k], own, starts[k], bytes));
  });
  return out;
}

/** Documents as a snapshot file holds them, none empty: the file's codes kept as they are when they are all its rows, in order. */
export function blocksFromSnapshot(live: readonly SnapshotDoc[], dims: number, withFull: boolean, bitOf: (tag: string) => number | null): DocumentBlock[] {
  const out: DocumentBlock[] = [];
  let rows = 0;
  for (const d of live) rows += d.n;
  // all of one file's rows in its order (a restart without a tail): its codes kept as they are, no copy
  const src = live[0].src;
  let whole = rows === src.scales.length;
  for (let k = 0, at = 0; whole && k < live.length; at += live[k].n, k++) whole = live[k].src === src && live[k].at === at;
  const codes = whole ? src.codes : new Int8Array(rows * dims);
  const b = new ColumnsBuilder(rows, bitOf);
  const starts = new Int32Array(live.length);
  const idChars = new Float64Array(live.length);
  // a file's rows of one tag set share one array of its numbers: their strings made once
  const tagStrings = new Map<readonly number[], readonly string[]>();
  const tagsOf = (t: readonly number[], s: string[]) => {
    let out = tagStrings.get(t);
    if (out === undefined) tagStrings.set(t, (out = t.length === 0 ? NO_TAGS : t.map((i) => s[i])));
    return out;
  };
  live.forEach((d, k) => {
    const at = (starts[k] = b.at);
    if (!whole) codes.set(d.src.codes.subarray(d.at * dims, (d.at + d.n) * dims), at * dims);
    b.scales.set(d.src.scales.subarray(d.at, d.at + d.n), at);
    const f = d.src;
    const s = f.strings;
    for (let r = 0; r < d.n; r++) {
      const i = d.at + r;
      const l = f.loc[i];
      const id = f.id(i);
      b.row(id, s[f.name[i]], l < 0 ? null : s[l], f.ci[i], tagsOf(f.tags(i), s));
      idChars[k] += id.length;
    }
  });
  const cols = b.finish();
  // its arrays let go now: a stale pointer to this frame kept a restore's thousand tag sets alive (a heap test counted them)
  tagStrings.clear();
  live.forEach((d, k) => {
    const bytes = blockBytes(cols, d.n, d.documentId, idChars[k]) + d.n * dims;
    out.push(new DocumentBlock(d.documentId, cols, starts[k], d.n, false, dims, codes, starts[k], withFull ? d.src.full : null, d.at, bytes));
  });
  return out;
}

/**
 * One document in columns of its own (a 4-bit row's write or restore), its codes packed to 4 bits when `packed`; its
 * row r's float32 vector is `full`'s row `fullAt` + r.
 */
export function blockOfOwn(documentId: string, meta: RowMeta, codes: Int8Array, scales: Float32Array, full: FullVectors | null, fullAt: number, packed: boolean, dims: number, bitOf: (tag: string) => number | null): DocumentBlock {
  const n = scales.length;
  const b = new ColumnsBuilder(n, bitOf);
  b.scales.set(scales);
  let idChars = 0;
  for (let r = 0; r < n; r++) {
    b.row(meta.ids[r], meta.documentName[r], meta.locationId[r], meta.chunkIndex[r], meta.tags[r]);
    idChars += meta.ids[r].length;
  }
  const cols = b.finish();
  const own = packed ? packCodes(codes) : codes;
  return new DocumentBlock(documentId, cols, 0, n, packed, packed ? dims >> 1 : dims, own, 0, full, fullAt, blockBytes(cols, n, documentId, idChars) + own.length + (full?.heapBytes ?? 0));
}
