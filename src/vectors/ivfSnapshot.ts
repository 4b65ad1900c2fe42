import type { DocumentBlock } from "./cacheBlocks.ts";
import type { IvfParts } from "./IvfIndex.ts";
import type { Int8Table } from "./ivfMath.ts";

/**
 * The IVF index in a project's snapshot file (cacheSnapshot.ts), so a restart answers through it at once instead
 * of training it again (minutes at 1M rows on a loaded box). Saved: the centroids, the coarse groups, and each
 * list's rows as row numbers in the file's own row order, so the lists need no ids. Loaded only if everything
 * checks (version, sizes, finite centroids, every group and every row listed exactly once): anything else
 * drops the index and the cache trains a new one in the background, the exact scan answering meanwhile.
 */

/**
 * 2: many small lists (IvfIndex.defaultLists: 16·√N), a row under its nearest list among three coarse groups. A part of
 * version 1 (√N big lists) would load and answer, but at today's probing its recall on real sentence vectors
 * falls to ~0.88 (bench/ivf-recall.ts): it is dropped, and the index trained anew while the exact scan answers.
 */
/**
 * 3: the centroids in int8 codes with a scale each (ivfMath.ts Int8Table), a quarter of version 2's float32 ones. A
 * part of version 2 is dropped like any other version: the rule is one layout a version, and a training (in the
 * background, the exact scan answering) is what an upgrade costs once.
 */
export const INDEX_VERSION = 3;

/** What the file's JSON header says of the index section that follows the vectors. */
export interface IndexMeta {
  v: number;
  k: number;
  k1: number;
  /** rows the centroids were trained on (a project that has doubled since gets new ones) */
  trainedRows: number;
}

export interface EncodedIndex {
  meta: IndexMeta;
  /**
   * in file order: the centroids' scales, the coarse centroids' scales, group sizes, group members, list sizes, list
   * rows (4 B each), then the centroids' int8 codes, the coarse ones', and zeros to a multiple of 4 bytes
   */
  sections: ArrayBufferView[];
}

/** Bytes of the index section for a file of `rows` rows of `dims` dims. */
export function indexBytes(m: IndexMeta, dims: number, rows: number): number {
  return 4 * (m.k + m.k1 + m.k1 + m.k + m.k + rows) + codeBytes(m, dims);
}

/** The int8 codes of both levels, padded to 4 bytes. */
const codeBytes = (m: IndexMeta, dims: number) => Math.ceil(((m.k + m.k1) * dims) / 4) * 4;

/**
 * The index's lists as row numbers of `blocks` (the file's documents, in its order); null when they do not list
 * every row of those blocks exactly (a row written while the index was elsewhere: then the file goes without).
 */
export async function encodeIndex(parts: IvfParts, trainedRows: number, blocks: DocumentBlock[], pause: () => Promise<void>): Promise<EncodedIndex | null> {
  const base = new Map<DocumentBlock, number>();
  let rows = 0;
  for (const b of blocks) {
    base.set(b, rows);
    rows += b.n;
  }
  const { k, lists } = parts;
  const listSizes = new Int32Array(k);
  const listRows = new Int32Array(rows);
  let at = 0;
  for (let c = 0; c < k; c++) {
    const docs = lists.docs[c];
    const rs = lists.rows[c];
    for (let j = 0; j < docs.length; j++) {
      const b = base.get(docs[j]);
      if (b === undefined) continue; // dead since, or not in the file
      if (at === rows) return null;
      listRows[at++] = b + rs[j];
      listSizes[c]++;
    }
    if (c % 64 === 63) await pause();
  }
  if (at !== rows) return null;
  const k1 = parts.members.length;
  const memberSizes = Int32Array.from(parts.members, (m) => m.length);
  const members = new Int32Array(memberSizes.reduce((s, n) => s + n, 0));
  let m = 0;
  for (const g of parts.members) {
    members.set(g, m);
    m += g.length;
  }
  const codes = new Int8Array(Math.ceil((parts.centroids.codes.length + parts.coarse.codes.length) / 4) * 4);
  codes.set(parts.centroids.codes);
  codes.set(parts.coarse.codes, parts.centroids.codes.length);
  return { meta: { v: INDEX_VERSION, k, k1, trainedRows }, sections: [parts.centroids.scales, parts.coarse.scales, memberSizes, members, listSizes, listRows, codes] };
}

/**
 * The index of a file whose section is `bytes` (already cut to indexBytes), over its restored `blocks`, or null
 * when anything disagrees. Copies what it keeps: nothing of it stays a view on the file.
 */
export function decodeIndex(m: IndexMeta | undefined, bytes: Uint8Array, blocks: DocumentBlock[], dims: number): IvfParts | null {
  if (!m || m.v !== INDEX_VERSION || !isCount(m.k) || !isCount(m.k1) || !(m.k1 <= m.k) || !Number.isInteger(m.trainedRows)) return null;
  let rows = 0;
  for (const b of blocks) rows += b.n;
  if (bytes.byteLength !== indexBytes(m, dims, rows) || bytes.byteOffset % 4 !== 0) return null;
  const f32 = (at: number, n: number) => new Float32Array(bytes.buffer.slice(bytes.byteOffset + at * 4, bytes.byteOffset + (at + n) * 4));
  const i32 = (at: number, n: number) => new Int32Array(bytes.buffer, bytes.byteOffset + at * 4, n);
  let at = 0;
  const scales = f32(at, m.k);
  at += m.k;
  const coarseScales = f32(at, m.k1);
  at += m.k1;
  // a scale is a unit vector's largest coordinate / 127: finite, ≥ 0 (0: a centroid that kept no rows' direction)
  const sound = (s: Float32Array) => s.every((x) => Number.isFinite(x) && x >= 0 && x <= 1);
  if (!sound(scales) || !sound(coarseScales)) return null;
  const codeAt = 4 * (m.k + m.k1 + m.k1 + m.k + m.k + rows);
  const codes = (from: number, n: number) => new Int8Array(bytes.buffer.slice(bytes.byteOffset + codeAt + from, bytes.byteOffset + codeAt + from + n));
  const centroids: Int8Table = { codes: codes(0, m.k * dims), scales };
  const coarse: Int8Table = { codes: codes(m.k * dims, m.k1 * dims), scales: coarseScales };
  const memberSizes = i32(at, m.k1);
  at += m.k1;
  const memberIds = i32(at, m.k);
  at += m.k;
  const listSizes = i32(at, m.k);
  at += m.k;
  const listRows = i32(at, rows);
  // every list in exactly one group
  const seenList = new Uint8Array(m.k);
  const members: Int32Array[] = [];
  let mi = 0;
  for (let g = 0; g < m.k1; g++) {
    const n = memberSizes[g];
    if (n < 0 || mi + n > m.k) return null;
    const ids = memberIds.slice(mi, mi + n);
    mi += n;
    for (const id of ids) if (id < 0 || id >= m.k || seenList[id]++) return null;
    members.push(ids);
  }
  if (mi !== m.k) return null;
  // every row in exactly one list
  const blockOf: DocumentBlock[] = new Array(rows);
  const rowOf = new Int32Array(rows);
  let r = 0;
  for (const b of blocks) for (let i = 0; i < b.n; i++, r++) (blockOf[r] = b), (rowOf[r] = i);
  const seenRow = new Uint8Array(rows);
  const docs: DocumentBlock[][] = [];
  const rowLists: number[][] = [];
  let li = 0;
  for (let c = 0; c < m.k; c++) {
    const n = listSizes[c];
    if (n < 0 || li + n > rows) return null;
    const d: DocumentBlock[] = new Array(n);
    const rs: number[] = new Array(n);
    for (let j = 0; j < n; j++) {
      const row = listRows[li + j];
      if (row < 0 || row >= rows || seenRow[row]++) return null;
      d[j] = blockOf[row];
      rs[j] = rowOf[row];
    }
    li += n;
    docs.push(d);
    rowLists.push(rs);
  }
  if (li !== rows) return null;
  return { k: m.k, centroids, coarse, members, lists: { docs, rows: rowLists } };
}

const isCount = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 1 << 20;
