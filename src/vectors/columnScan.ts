import { visible, type DocumentBlock, type PreparedQuery, type TopN } from "./cacheBlocks.ts";

/**
 * The exact scan of a sparse query (the hashing embedder's: tens of non-zero dims of 384) over a big project,
 * dimension by dimension. Row by row, each row's few dims sit on as many cache lines, scattered over 384 bytes,
 * and 100,000 rows cost ~10 ms of memory stalls a turn; here each dim the query uses is one contiguous column
 * of every row's codes, read front to back. It copies the codes once (rows × dims bytes), so it is built only
 * for a project past COLUMN_MIN_ROWS that is searched with sparse queries, in the background after the first
 * such search (columnCopy.ts), the row scan answering until it is ready.
 *
 * Scores and their order are the row scan's: each row's dot product adds the same terms in the same order
 * (float64, as the row scan's), rows are offered in the cache's document order, and documents written since
 * the build are scanned row by row after the columns (deleted or replaced ones are skipped: `dead`).
 */
export const COLUMN_MIN_ROWS = 20_000;
/** Rows copied between two yields of a background build (~2.5 ms at 384 dims). */
export const COLUMN_SLICE_ROWS = 2_048;

export class ColumnScan {
  private readonly docOf: DocumentBlock[];
  private readonly rowOf: Int32Array;
  private readonly cols: Int8Array;
  private readonly scales: Float32Array;
  /** per row, the block's tag bits and overflow flag: the visibility test reads no block */
  private readonly tagBits: Uint32Array;
  private readonly overflow: Uint8Array;
  private readonly acc: Float64Array;
  /** a search's rows that pass the tag bits, in row order */
  private readonly pass: Int32Array;
  /** documents placed since the build: scanned row by row until the next build */
  readonly added = new Set<DocumentBlock>();
  /** rows of the build's documents deleted or replaced since */
  deadRows = 0;

  private constructor(rows: number, readonly dims: number) {
    this.docOf = new Array(rows);
    this.rowOf = new Int32Array(rows);
    this.cols = new Int8Array(rows * dims);
    this.scales = new Float32Array(rows);
    this.acc = new Float64Array(rows);
    this.pass = new Int32Array(rows);
    this.tagBits = new Uint32Array(rows);
    this.overflow = new Uint8Array(rows);
  }

  /** An empty copy for `rows` rows, filled by `copy` a slice at a time (columnCopy.ts runs the slices). */
  static empty(rows: number, dims: number): ColumnScan {
    return new ColumnScan(rows, dims);
  }

  /**
   * Copies the next documents of `docs` (every live block at one moment, this copy's rows in all) from `at`, whole
   * documents until at least `sliceRows` rows are done (~1.2 ms per 1,000 rows at 384 dims); true once all are.
   */
  copy(docs: DocumentBlock[], at: { doc: number; row: number }, sliceRows: number): boolean {
    const { docOf, rowOf, cols, scales, tagBits, overflow, dims } = this;
    const rows = this.rows;
    let i = at.row;
    const end = i + sliceRows;
    for (; at.doc < docs.length && i < end; at.doc++) {
      const doc = docs[at.doc];
      for (let r = 0; r < doc.scales.length; r++, i++) {
        docOf[i] = doc;
        rowOf[i] = r;
        scales[i] = doc.scales[r];
        tagBits[i] = doc.tagBits[r];
        overflow[i] = doc.overflow[r];
        const base = r * dims;
        for (let d = 0; d < dims; d++) cols[d * rows + i] = doc.codes[base + d];
      }
    }
    at.row = i;
    return at.doc >= docs.length;
  }

  get rows(): number {
    return this.rowOf.length;
  }

  /** Memory it holds (counted in the cache's bytes). */
  get bytes(): number {
    return this.cols.byteLength + this.rows * (4 + 4 + 8 + 8 + 4 + 1 + 4);
  }

  /** Worth building again: a tenth of its rows gone or written since (those are scanned the slow way). */
  get stale(): boolean {
    let added = 0;
    for (const b of this.added) added += b.scales.length;
    return (added + this.deadRows) * 10 > this.rows;
  }

  /** Offers every visible row of a sparse query to `best`, as the cache's row scan does. */
  scan(p: PreparedQuery, best: TopN, scoreRow: (doc: DocumentBlock, r: number) => number): void {
    const { acc, cols, rowOf, docOf, scales, tagBits, overflow, pass } = this;
    const n = this.rows;
    const want = p.want;
    // only the rows whose tag bits pass are scored (a mind knows a few tags of a project's many): the columns
    // are read at those rows, still front to back
    let m = 0;
    for (let i = 0; i < n; i++) if ((tagBits[i] & want) !== 0 || overflow[i] !== 0) pass[m++] = i;
    acc.fill(0, 0, m);
    const { nzIdx, nzVal } = p;
    for (let j = 0; j < nzIdx.length; j++) {
      const v = nzVal[j];
      const off = nzIdx[j] * n;
      for (let k = 0; k < m; k++) acc[k] += v * cols[off + pass[k]];
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
      for (let r = 0; r < doc.scales.length; r++) if (visible(doc, r, p)) best.offer(scoreRow(doc, r), doc, r);
    }
  }
}
