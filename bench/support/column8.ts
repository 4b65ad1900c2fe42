// The sparse queries' column copy as it was before 4-bit codes (a byte a dimension per row, the int8 codes
// copied as they are), for bench/column-bits.ts to run side by side with the one in src/vectors/columnScan.ts.
import { blockCodes, fullScore, TopN, visible, type DocumentBlock, type PreparedQuery } from "../../src/vectors/cacheBlocks.ts";

export class Column8Scan {
  private readonly docOf: DocumentBlock[];
  private readonly rowOf: Int32Array;
  /** dims × rows: dim d of every row, contiguous */
  private readonly cols: Int8Array;
  private readonly scales: Float32Array;
  private readonly tagBits: Uint32Array;
  private readonly overflow: Uint8Array;
  private readonly acc: Float64Array;
  private readonly pass: Int32Array;

  constructor(blocks: DocumentBlock[], readonly dims: number) {
    let rows = 0;
    for (const b of blocks) rows += b.scales.length;
    this.docOf = new Array(rows);
    this.rowOf = new Int32Array(rows);
    this.cols = new Int8Array(dims * rows);
    this.scales = new Float32Array(rows);
    this.tagBits = new Uint32Array(rows);
    this.overflow = new Uint8Array(rows);
    this.acc = new Float64Array(rows);
    this.pass = new Int32Array(rows);
    let i = 0;
    for (const b of blocks) {
      const codes = blockCodes(b, dims);
      for (let r = 0; r < b.scales.length; r++, i++) {
        this.docOf[i] = b;
        this.rowOf[i] = r;
        this.tagBits[i] = b.tagBits[r];
        this.overflow[i] = b.cols.overflow?.[b.at + r] ?? 0;
        this.scales[i] = b.scales[r];
        for (let d = 0; d < dims; d++) this.cols[d * rows + i] = codes[r * dims + d];
      }
    }
  }

  get bytes(): number {
    return this.cols.byteLength + this.rowOf.length * (8 + 4 + 4 + 8 + 4 + 4 + 1);
  }

  /** The n best visible rows: `rescore` × n candidates by the int8 scores, ordered by their float32 cosines. */
  search(p: PreparedQuery, n: number, rescore: number): { doc: DocumentBlock; row: number; score: number }[] {
    const { acc, cols, rowOf, docOf, scales, tagBits, overflow, pass } = this;
    const rows = rowOf.length;
    let m = 0;
    for (let i = 0; i < rows; i++) if ((tagBits[i] & p.want) !== 0 || overflow[i] !== 0) pass[m++] = i;
    acc.fill(0, 0, m);
    const { nzIdx, nzVal } = p;
    for (let j = 0; j < nzIdx.length; j++) {
      const v = nzVal[j];
      const off = nzIdx[j] * rows;
      for (let k = 0; k < m; k++) acc[k] += v * cols[off + pass[k]];
    }
    const best = new TopN(n * rescore);
    for (let k = 0; k < m; k++) {
      const i = pass[k];
      const score = acc[k] * scales[i];
      if (score <= best.worst) continue;
      const doc = docOf[i];
      if (doc.dead) continue;
      const r = rowOf[i];
      if (visible(doc, r, p)) best.offer(score, doc, r);
    }
    const items = best.items.map((it) => ({ ...it, score: fullScore(it.doc, it.row, p) ?? it.score }));
    items.sort((a, b) => b.score - a.score);
    return items.slice(0, n);
  }
}
