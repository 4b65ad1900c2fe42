import { OwnVectors, type FullVectors } from "./fullVectors.ts";
import { ownColumns, type RowColumns } from "./rowColumns.ts";
import type { PreparedQuery } from "./preparedQuery.ts";

// where the cache's callers have always found them
export { normalised, type PreparedQuery, prepareQuery } from "./preparedQuery.ts";

/** The rows of the project vector cache, a document at a time, and the scoring both its scans share. */

/**
 * A document's rows: a run of `n` rows from row `at` of a columns object (rowColumns.ts) that it may share with
 * other documents (every document a snapshot file restores shares one), so that a document costs one small object
 * and its rows a few bytes in each column, not a handful of strings, arrays and typed arrays of its own.
 */
export class DocumentBlock {
  /** the column copy or index store holding the rows' codes once the block has none (`homeStart`: its first row there) */
  homeCopy: ColumnRows | null = null;
  homeStart = 0;
  /** set when the document is replaced or deleted: an index still listing its rows skips them */
  dead = false;

  constructor(
    readonly documentId: string,
    /**
     * its columns and its first row there; both change together, and only to columns holding the same values for its
     * rows (a compaction, columnCompaction.ts, or its death, `detach`), so a reader taking both at once reads right
     */
    public cols: RowColumns,
    public at: number,
    /** its row count */
    readonly n: number,
    /**
     * 4-bit row codes: a dense block (a neural embedder's rows) re-scored in float32, when the cache is asked for
     * them (CacheOptions.rowBits 4). Its 4-bit candidates, 4 × n of them, re-scored in float32 find the same top 4 as
     * its int8 ones on real MiniLM vectors (bench/dense-bits.ts) at half the bytes, but rows closer than the 4-bit
     * error (near-copies) are ranked by chance before re-scoring, so int8 stays the default. A sparse block stays
     * int8 until its project's column copy takes it.
     */
    readonly packed: boolean,
    /** codes per row: dims, or dims / 2 when `packed` */
    readonly width: number,
    /**
     * the rows' codes: row r at (codeAt + r) × width (int8 codes of the
     * L2-normalised vector, the value d is code × the row's scale; 4-bit: dim 2j in the low nibble of byte j, 2j+1 in
     * the high one, the value the nibble × scale × 127/7); an array the documents restored together share, so it
     * goes once every one of them has moved its codes to a home (null here) or is gone
     */
    public codeArr: Int8Array | null,
    public codeAt: number,
    /**
     * unit float32 vectors for re-scoring a search's top candidates (the block's row r is row `fullAt` + r of them),
     * or null (re-scoring off): rows of the project's snapshot file (read for the candidates alone, from the OS page
     * cache), or this process's own copy for rows written since the snapshot (fullVectors.ts)
     */
    public full: FullVectors | null,
    public fullAt: number,
    /** memory it holds, estimated (its rows' share of the columns, its codes, its own float32 rows) */
    public bytes: number,
  ) {}

  get ownCodes(): boolean {
    return this.codeArr !== null;
  }

  /** The home of its codes, when one holds them. */
  get home(): ColumnHome | null {
    return this.homeCopy === null ? null : { copy: this.homeCopy, start: this.homeStart };
  }

  /** Its rows' codes as one array (a view), or null once a home holds them. The scans read codeArr itself. */
  get codes(): Int8Array | null {
    const c = this.codeArr;
    return c === null ? null : c.subarray(this.codeAt * this.width, (this.codeAt + this.n) * this.width);
  }

  /** Its rows' scales (a view). */
  get scales(): Float32Array {
    return this.cols.scales.subarray(this.at, this.at + this.n);
  }

  /** Its rows' tag bits (a view). */
  get tagBits(): Uint32Array {
    return this.cols.tagBits.subarray(this.at, this.at + this.n);
  }

  /** Bytes of its own codes. */
  get codeBytes(): number {
    return this.codeArr === null ? 0 : this.n * this.width;
  }

  /** A home now holds its rows' codes (its row r at `start` + r there). Returns the bytes of codes it let go. */
  moveCodes(copy: ColumnRows, start: number): number {
    this.homeCopy = copy;
    this.homeStart = start;
    const freed = this.codeBytes;
    this.codeArr = null;
    this.bytes -= freed;
    return freed;
  }

  /**
   * Once dead: its rows' fields and codes copied out of the columns and the array it shares, so a compaction of
   * those, or the live documents' moving their codes, lets them go (an index, a copy's build or a save may still
   * read a dead block's rows for a while).
   */
  detach(): void {
    if (this.cols.rows !== this.n) {
      this.cols = ownColumns(this.cols, this.at, this.n);
      this.at = 0;
    }
    const c = this.codeArr;
    if (c !== null && c.length !== this.n * this.width) {
      this.codeArr = c.slice(this.codeAt * this.width, (this.codeAt + this.n) * this.width);
      this.codeAt = 0;
    }
    // likewise its float32 rows of this process's own, written with other documents
    const f = this.full;
    if (f?.owned && f.heapBytes !== this.n * f.row(0).length * 4) {
      const rows = f.slice(this.fullAt, this.n).slice();
      this.full = new OwnVectors(rows, rows.length / this.n);
      this.fullAt = 0;
    }
  }
}

/** A document's rows apart from their vectors, column by column. */
export interface RowMeta {
  ids: string[];
  documentName: string[];
  locationId: (string | null)[];
  chunkIndex: Int32Array;
  tags: string[][];
}

/** Where a block's codes live once it has none of its own: rows of a column copy (columnScan.ts implements it). */
export interface ColumnHome {
  readonly copy: ColumnRows;
  readonly start: number;
}

export interface ColumnRows {
  /** row i's score against the query, from its 4-bit codes */
  scoreAt(i: number, p: PreparedQuery): number;
  /** row i's values (codes × scale) into out */
  valuesAt(i: number, out: Float32Array): void;
  /** row i as int8 codes for the block's own scale (what a snapshot file stores) into out at offset */
  codesAt(i: number, out: Int8Array, offset: number): void;
}

export const rowCount = (b: DocumentBlock): number => b.n;

export function rowId(b: DocumentBlock, r: number): string {
  return b.cols.id(b.at + r);
}

export function rowName(b: DocumentBlock, r: number): string {
  return b.cols.string(b.cols.name[b.at + r]);
}

export function rowLocation(b: DocumentBlock, r: number): string | null {
  const l = b.cols.loc[b.at + r];
  return l < 0 ? null : b.cols.string(l);
}

export function rowChunkIndex(b: DocumentBlock, r: number): number {
  return b.cols.chunkIndex[b.at + r];
}

/** Row r's tags (shared with the other rows that carry the same: copy before handing out). */
export function rowTags(b: DocumentBlock, r: number): string[] {
  return b.cols.tags(b.cols.tagSet[b.at + r]);
}

/** Row r's scale. */
export const rowScale = (b: DocumentBlock, r: number): number => b.cols.scales[b.at + r];

/** An int8 code (as its byte) to the 4-bit code nearest it, ±127 → ±7, as the nibble's 4 bits. */
export const NIBBLE = Uint8Array.from({ length: 256 }, (_, b) => Math.round((((b << 24) >> 24) * 7) / 127) & 15);
/** A 4-bit code (-7…7) back to the int8 code of the same value under the row's int8 scale (exact back through NIBBLE). */
export const nibbleToInt8 = (nib: number) => Math.round((nib * 127) / 7);

/** The block's int8 codes: its own, unpacked, or made back from its column copy (a snapshot's save writes them). */
export function blockCodes(b: DocumentBlock, dims: number): Int8Array {
  const own = b.codes;
  if (own && !b.packed) return own;
  const out = new Int8Array(rowCount(b) * dims);
  if (own) {
    const codes = own;
    for (let i = 0; i < codes.length; i++) {
      out[2 * i] = nibbleToInt8((codes[i] << 28) >> 28);
      out[2 * i + 1] = nibbleToInt8(codes[i] >> 4);
    }
    return out;
  }
  const copy = b.homeCopy!;
  for (let r = 0; r < rowCount(b); r++) copy.codesAt(b.homeStart + r, out, r * dims);
  return out;
}

/** Row r's values (codes × scale) into out. */
export function rowValues(b: DocumentBlock, r: number, dims: number, out: Float32Array): Float32Array {
  const codes = b.codeArr;
  const i = b.at + r;
  const c = b.codeAt + r;
  if (codes === null) b.homeCopy!.valuesAt(b.homeStart + r, out);
  else if (b.packed) {
    const s = (b.cols.scales[i] * 127) / 7;
    const base = (c * dims) >> 1;
    for (let j = 0; j < dims >> 1; j++) {
      out[2 * j] = ((codes[base + j] << 28) >> 28) * s;
      out[2 * j + 1] = (codes[base + j] >> 4) * s;
    }
  } else for (let d = 0; d < dims; d++) out[d] = codes[c * dims + d] * b.cols.scales[i];
  return out;
}

/**
 * Row r's vector up to a positive factor, for the IVF index's nearest centroid: its int8 codes, else its float32
 * vector (4-bit codes are too coarse to list a row by), else its values. Valid until the next call (a file's row is
 * read into a shared scratch).
 */
export function rowVector(b: DocumentBlock, r: number, dims: number, scratch: Float32Array): ArrayLike<number> {
  if (b.codeArr !== null && !b.packed) return b.codeArr.subarray((b.codeAt + r) * dims, (b.codeAt + r + 1) * dims);
  if (b.full) return b.full.row(b.fullAt + r);
  return rowValues(b, r, dims, scratch);
}

/** Packs rows of int8 codes (rows × dims) into 4-bit codes (rows × dims/2), as a packed block holds them. */
export function packCodes(codes: Int8Array): Int8Array {
  const out = new Int8Array(codes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = NIBBLE[codes[2 * i] & 255] | (NIBBLE[codes[2 * i + 1] & 255] << 4);
  return out;
}

/** Dense rows (a neural embedder's: most dims non-zero), which a block keeps in 4 bits when it is re-scored. */
export function denseCodes(codes: Int8Array, rows: number, dims: number): boolean {
  if (rows === 0 || dims % 2 !== 0) return false;
  let nz = 0;
  for (let d = 0; d < dims; d++) if (codes[d] !== 0) nz++;
  return nz >= dims / 2;
}


/** The knowledge-scoping rule, per row: one of its tags is among the visible ones. */
export function visible(doc: DocumentBlock, r: number, p: PreparedQuery): boolean {
  const { tagBits, overflow } = doc.cols;
  const i = doc.at + r;
  return (tagBits[i] & p.want) !== 0 || (overflow !== null && overflow[i] === 1 && anyTag(rowTags(doc, r), p.tags));
}

function anyTag(tags: readonly string[], visible: ReadonlySet<string>): boolean {
  for (let j = 0; j < tags.length; j++) if (visible.has(tags[j])) return true;
  return false;
}

/** The exact cosine of row r against the query, from its float32 vector (null without one). */
export function fullScore(doc: DocumentBlock, r: number, p: PreparedQuery): number | null {
  return doc.full ? doc.full.dot(doc.fullAt + r, p) : null;
}

export function scoreRow(doc: DocumentBlock, r: number, p: PreparedQuery, dims: number): number {
  // rows held by a column copy only: scored from it (a dense query over a sparse project, a rare path)
  const codes = doc.codeArr;
  if (codes === null) return doc.homeCopy!.scoreAt(doc.homeStart + r, p);
  const i = doc.at + r;
  if (doc.packed) return scorePacked(codes, doc.codeAt + r, p, dims) * ((doc.cols.scales[i] * 127) / 7);
  const base = (doc.codeAt + r) * dims;
  let dot = 0;
  if (p.sparse) {
    const { nzIdx, nzVal } = p;
    for (let j = 0; j < nzIdx.length; j++) dot += nzVal[j] * codes[base + nzIdx[j]];
  } else {
    const q = p.q;
    for (let d = 0; d < dims; d++) dot += q[d] * codes[base + d];
  }
  return dot * doc.cols.scales[i];
}

function scorePacked(codes: Int8Array, r: number, p: PreparedQuery, dims: number): number {
  const base = (r * dims) >> 1;
  let dot = 0;
  if (p.sparse) {
    const { nzIdx, nzVal } = p;
    for (let j = 0; j < nzIdx.length; j++) {
      const d = nzIdx[j];
      const b = codes[base + (d >> 1)];
      dot += nzVal[j] * (d & 1 ? b >> 4 : (b << 28) >> 28);
    }
  } else {
    const q = p.q;
    for (let j = 0, d = 0; d < dims; j++, d += 2) {
      const b = codes[base + j];
      dot += q[d] * ((b << 28) >> 28) + q[d + 1] * (b >> 4);
    }
  }
  return dot;
}

/**
 * The n best offers, kept as a short sorted list (n is at most a few hundred): score, block and row side by side in
 * arrays made once, an offer shifting the worse ones down a place. Why not an object an offer: a search offers
 * hundreds of rows, and each kept one was an object and two array splices, garbage the collector then swept on
 * other threads while the search waited (BENCHMARKS.md "the index's tail at 1M"). Equal scores keep the order
 * they were offered in. `items` makes the objects of the rows kept, for callers that want them.
 */
export class TopN {
  private readonly scores: Float64Array;
  private readonly docs: (DocumentBlock | null)[];
  private readonly rows: Int32Array;
  private count = 0;

  constructor(readonly n: number) {
    this.scores = new Float64Array(n);
    this.docs = new Array<DocumentBlock | null>(n).fill(null);
    this.rows = new Int32Array(n);
  }

  get full(): boolean {
    return this.count === this.n;
  }

  get length(): number {
    return this.count;
  }

  /** A score at or below this is refused (-Infinity until n are kept). */
  get worst(): number {
    return this.count === this.n ? this.scores[this.n - 1] : Number.NEGATIVE_INFINITY;
  }

  /** Empty again, for another search (the blocks it held let go). */
  reset(): void {
    this.docs.fill(null, 0, this.count);
    this.count = 0;
  }

  offer(score: number, doc: DocumentBlock, row: number): void {
    const { scores, docs, rows, n } = this;
    const c = this.count;
    if (n === 0 || (c === n && score <= scores[n - 1])) return;
    let i = c;
    while (i > 0 && scores[i - 1] < score) i--;
    if (i === n) return; // a NaN, full: it would go last and fall off
    // the ones after i move down a place; when full, the last falls off
    const end = c === n ? n - 1 : c;
    if (end > i) {
      scores.copyWithin(i + 1, i, end);
      rows.copyWithin(i + 1, i, end);
      for (let j = end; j > i; j--) docs[j] = docs[j - 1];
    }
    scores[i] = score;
    docs[i] = doc;
    rows[i] = row;
    if (c < n) this.count = c + 1;
  }

  /** The i-th best kept (i < length): its score, block and row. */
  scoreAt(i: number): number {
    return this.scores[i];
  }

  docAt(i: number): DocumentBlock {
    return this.docs[i]!;
  }

  rowAt(i: number): number {
    return this.rows[i];
  }

  /** The rows kept, best first, as objects. */
  get items(): { score: number; doc: DocumentBlock; row: number }[] {
    const out: { score: number; doc: DocumentBlock; row: number }[] = [];
    for (let i = 0; i < this.count; i++) out.push({ score: this.scores[i], doc: this.docs[i]!, row: this.rows[i] });
    return out;
  }
}

/** Writes the int8 codes of v (normalised) at codes[offset…] and returns the scale that turns a code back into a value. */
export function quantise(v: ArrayLike<number>, dims: number, codes: Int8Array, offset: number): number {
  // one pass for the norm and the largest coordinate, one to write: no temporary (a cold load quantises every row)
  let norm = 0;
  let max = 0;
  for (let d = 0; d < dims; d++) {
    const x = Number(v[d] ?? 0);
    norm += x * x;
    const a = Math.abs(x);
    if (a > max) max = a;
  }
  if (max === 0) return 0;
  const inv = 127 / max;
  for (let d = 0; d < dims; d++) codes[offset + d] = Math.round(Number(v[d] ?? 0) * inv);
  return max / 127 / Math.sqrt(norm);
}
