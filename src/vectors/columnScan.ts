import { NIBBLE, nibbleToInt8, visible, type ColumnRows, type DocumentBlock, type PreparedQuery, type TopN } from "./cacheBlocks.ts";

/**
 * The scan of a sparse query (the hashing embedder's: tens of non-zero dims of 384) over a big project, dimension
 * by dimension. Row by row, each row's few dims sit on as many cache lines, scattered over 384 bytes, and 100,000
 * rows cost ~10 ms of memory stalls a turn; here each dim the query uses is one contiguous column of every row's
 * code, read front to back. It is a copy beside the rows, so it is built only for a project past COLUMN_MIN_ROWS
 * that is searched with sparse queries, in the background after the first such search (columnCopy.ts), the row
 * scan answering until it is ready.
 *
 * Why 4-bit codes (two rows a byte, -7…7, made from the int8 codes with the row's scale): the copy is what a sparse
 * project holds beyond a dense one, and in int8 it was 417 B a chunk; in 4-bit it is 229 B. The coarser scores
 * only pick the candidates: the cache re-scores them with their float32 vectors (it uses this scan only with
 * re-scoring on), and measured on the generated 100,000-chunk world the top 4 after re-scoring 4 × n candidates
 * reach recall@4 0.999 against the float32 exact scan at 0.97× the int8 copy's CPU (bench/column-bits.ts).
 * Rows are offered in the cache's document order; documents written since the build are scanned row by row after
 * the columns, with their int8 codes (deleted or replaced ones are skipped: `dead`).
 */
export const COLUMN_MIN_ROWS = 20_000;
/** Rows copied between two yields of a background build (a few ms at 384 dims). */
export const COLUMN_SLICE_ROWS = 2_048;


export class ColumnScan implements ColumnRows {
  private readonly docOf: DocumentBlock[];
  private readonly rowOf: Int32Array;
  /**
   * dims × half bytes: row i's code of dim d in byte d·half + (i mod half), the first half's rows in the low nibbles
   * and the second half's in the high ones, so a scan reads each half in one loop without a branch
   */
  private readonly cols: Int8Array;
  private readonly half: number;
  /** per row, the scale that turns its 4-bit codes back into values */
  private readonly scales: Float32Array;
  /** per row, the block's tag bits and overflow flag: the visibility test reads no block */
  private readonly tagBits: Uint32Array;
  private readonly overflow: Uint8Array;
  private readonly acc: Float64Array;
  /** a search's rows that pass the tag bits, in row order, and each one's byte within a column */
  private readonly pass: Int32Array;
  private readonly at: Int32Array;
  /** documents placed since the build: scanned row by row until the next build */
  readonly added = new Set<DocumentBlock>();
  /** rows of the build's documents deleted or replaced since */
  deadRows = 0;

  private constructor(rows: number, readonly dims: number) {
    this.docOf = new Array(rows);
    this.rowOf = new Int32Array(rows);
    this.half = Math.ceil(rows / 2);
    this.cols = new Int8Array(this.half * dims);
    this.scales = new Float32Array(rows);
    this.acc = new Float64Array(rows);
    this.pass = new Int32Array(rows);
    this.at = new Int32Array(rows);
    this.tagBits = new Uint32Array(rows);
    this.overflow = new Uint8Array(rows);
  }

  /** one row's int8 codes read back from a store that is not a column copy, while copying */
  private scratch: Int8Array | null = null;

  /** An empty copy for `rows` rows, filled by `copy` a slice at a time (columnCopy.ts runs the slices). */
  static empty(rows: number, dims: number): ColumnScan {
    return new ColumnScan(rows, dims);
  }

  /**
   * Copies the next documents of `docs` (every live block at one moment, this copy's rows in all) from `at`, whole
   * documents until at least `sliceRows` rows are done; true once all are.
   */
  copy(docs: DocumentBlock[], at: { doc: number; row: number }, sliceRows: number): boolean {
    const { docOf, rowOf, cols, scales, tagBits, overflow, dims, half } = this;
    let i = at.row;
    const end = i + sliceRows;
    for (; at.doc < docs.length && i < end; at.doc++) {
      const doc = docs[at.doc];
      const cs = doc.cols;
      for (let r = 0; r < doc.n; r++, i++) {
        docOf[i] = doc;
        rowOf[i] = r;
        // an int8 row's largest code is ±127: 4-bit codes are those scaled to ±7
        scales[i] = (cs.scales[doc.at + r] * 127) / 7;
        tagBits[i] = cs.tagBits[doc.at + r];
        overflow[i] = cs.overflow === null ? 0 : cs.overflow[doc.at + r];
        const base = (doc.codeAt + r) * dims;
        const codes = doc.codeArr;
        // rows are copied in order, so a low-half row finds its bytes empty and a high-half row finds its low
        // nibbles written: a store, or an or, per code (stored as int8: the high nibble reads back signed)
        if (codes === null && doc.homeCopy instanceof ColumnScan) {
          // a row the previous copy holds alone: its nibbles as they are
          const from = doc.homeCopy;
          const j = doc.homeStart + r;
          for (let d = 0; d < dims; d++) {
            const nib = from.nibble(d, j) & 15;
            if (i < half) cols[d * half + i] = nib;
            else cols[d * half + i - half] |= nib << 4;
          }
        } else if (codes === null) {
          // a row whose int8 codes another store holds (the approximate index keeps a dense row's codes in list
          // order): read back as the block's own codes, then as any int8 row
          const own = (this.scratch ??= new Int8Array(dims));
          doc.homeCopy!.codesAt(doc.homeStart + r, own, 0);
          if (i < half) for (let d = 0; d < dims; d++) cols[d * half + i] = NIBBLE[own[d] & 255];
          else for (let d = 0; d < dims; d++) cols[d * half + i - half] |= NIBBLE[own[d] & 255] << 4;
        } else if (doc.packed) {
          const pb = base >> 1;
          for (let d = 0; d < dims; d++) {
            const nib = (codes[pb + (d >> 1)] >> (d & 1 ? 4 : 0)) & 15;
            if (i < half) cols[d * half + i] = nib;
            else cols[d * half + i - half] |= nib << 4;
          }
        } else if (i < half) for (let d = 0; d < dims; d++) cols[d * half + i] = NIBBLE[codes[base + d] & 255];
        else for (let d = 0; d < dims; d++) cols[d * half + i - half] |= NIBBLE[codes[base + d] & 255] << 4;
      }
    }
    at.row = i;
    return at.doc >= docs.length;
  }

  /** Row i's 4-bit code of dim d, -7…7. */
  private nibble(d: number, i: number): number {
    const h = this.half;
    return i < h ? (this.cols[d * h + i] << 28) >> 28 : this.cols[d * h + i - h] >> 4;
  }

  scoreAt(i: number, p: PreparedQuery): number {
    let dot = 0;
    if (p.sparse) for (let j = 0; j < p.nzIdx.length; j++) dot += p.nzVal[j] * this.nibble(p.nzIdx[j], i);
    else for (let d = 0; d < this.dims; d++) dot += p.q[d] * this.nibble(d, i);
    return dot * this.scales[i];
  }

  valuesAt(i: number, out: Float32Array): void {
    const s = this.scales[i];
    for (let d = 0; d < this.dims; d++) out[d] = this.nibble(d, i) * s;
  }

  codesAt(i: number, out: Int8Array, offset: number): void {
    // the 4-bit scale is the int8 one × 127/7: a nibble's int8 code is the nibble × 127/7 (exact back through NIBBLE)
    for (let d = 0; d < this.dims; d++) out[offset + d] = nibbleToInt8(this.nibble(d, i));
  }

  get rows(): number {
    return this.rowOf.length;
  }

  /** Memory it holds (counted in the cache's bytes). */
  get bytes(): number {
    return this.cols.byteLength + this.rows * (8 + 4 + 4 + 8 + 4 + 4 + 4 + 1);
  }

  /** Worth building again: a tenth of its rows gone or written since (those are scanned the slow way). */
  get stale(): boolean {
    let added = 0;
    for (const b of this.added) added += b.n;
    return (added + this.deadRows) * 10 > this.rows;
  }

  /** Offers every visible row of a sparse query to `best` with its 4-bit score (the caller re-scores the candidates). */
  scan(p: PreparedQuery, best: TopN, scoreRow: (doc: DocumentBlock, r: number) => number): void {
    const { acc, cols, rowOf, docOf, scales, tagBits, overflow, pass, at, half } = this;
    const n = this.rows;
    const want = p.want;
    // only the rows whose tag bits pass are scored (a mind knows a few tags of a project's many): the columns
    // are read at those rows, still front to back
    let m = 0;
    let low = 0;
    for (let i = 0; i < n; i++) {
      if ((tagBits[i] & want) === 0 && overflow[i] === 0) continue;
      if (i < half) low++;
      at[m] = i < half ? i : i - half;
      pass[m++] = i;
    }
    acc.fill(0, 0, m);
    const { nzIdx, nzVal } = p;
    for (let j = 0; j < nzIdx.length; j++) {
      const v = nzVal[j];
      const off = nzIdx[j] * half;
      for (let k = 0; k < low; k++) acc[k] += v * ((cols[off + at[k]] << 28) >> 28);
      for (let k = low; k < m; k++) acc[k] += v * (cols[off + at[k]] >> 4);
    }
    const exclude = p.exclude;
    // the cheap test first (the score against the worst kept), the block only for a row that passes: skipping a
    // row that offer would refuse anyway changes nothing
    for (let k = 0; k < m; k++) {
      const i = pass[k];
      const score = acc[k] * scales[i];
      if (score <= best.worst) continue;
      const doc = docOf[i];
      if (doc.dead || (exclude && exclude(doc.documentId))) continue;
      const r = rowOf[i];
      if (visible(doc, r, p)) best.offer(score, doc, r);
    }
    for (const doc of this.added) {
      if (doc.dead || exclude?.(doc.documentId)) continue;
      for (let r = 0; r < doc.n; r++) if (visible(doc, r, p)) best.offer(scoreRow(doc, r), doc, r);
    }
  }
}
