// A 4-bit column copy for sparse queries, for bench/column-bits.ts: the shape src/vectors/columnScan.ts would take
// if a project's sparse scan ran from 4-bit codes (two rows a byte per dimension) with the top candidates re-scored
// from their float32 vectors. Kept here, not in src/, until the bench says whether it pays.
import { fullScore, TopN, visible, type DocumentBlock, type PreparedQuery } from "../../src/vectors/cacheBlocks.ts";

export class Column4Scan {
  private readonly docOf: DocumentBlock[];
  private readonly rowOf: Int32Array;
  /**
   * dims × ⌈rows / 2⌉: row i's code of dim d in byte d·half + (i mod half), the first half's rows in the low nibbles
   * and the second half's in the high ones, so a scan reads each half with one branch-free loop
   */
  private readonly cols: Int8Array;
  private readonly scales: Float32Array;
  private readonly tagBits: Uint32Array;
  private readonly overflow: Uint8Array;
  private readonly acc: Float64Array;
  private readonly pass: Int32Array;
  /** per passing row, its byte within a column (i mod half) */
  private readonly at: Int32Array;
  private readonly half: number;

  constructor(blocks: DocumentBlock[], readonly dims: number) {
    let rows = 0;
    for (const b of blocks) rows += b.scales.length;
    this.half = Math.ceil(rows / 2);
    this.docOf = new Array(rows);
    this.rowOf = new Int32Array(rows);
    this.cols = new Int8Array(dims * this.half);
    this.scales = new Float32Array(rows);
    this.tagBits = new Uint32Array(rows);
    this.overflow = new Uint8Array(rows);
    this.acc = new Float64Array(rows);
    this.pass = new Int32Array(rows);
    this.at = new Int32Array(rows);
    let i = 0;
    for (const b of blocks) {
      for (let r = 0; r < b.scales.length; r++, i++) {
        this.docOf[i] = b;
        this.rowOf[i] = r;
        this.tagBits[i] = b.tagBits[r];
        this.overflow[i] = b.overflow[r];
        // from the row's int8 codes (what the cache holds in memory; its largest code is ±127): codes in -7…7
        const base = r * dims;
        this.scales[i] = (b.scales[r] * 127) / 7;
        for (let d = 0; d < dims; d++) {
          const c = Math.round((b.codes[base + d] * 7) / 127) & 15;
          const high = i >= this.half;
          const at = d * this.half + (high ? i - this.half : i);
          this.cols[at] = ((high ? (this.cols[at] & 0x0f) | (c << 4) : (this.cols[at] & 0xf0) | c) << 24) >> 24;
        }
      }
    }
  }

  get bytes(): number {
    const rows = this.rowOf.length;
    return this.cols.byteLength + rows * (4 + 4 + 8 + 8 + 4 + 4 + 1 + 4);
  }

  /** The n best visible rows: `rescore` × n candidates by the 4-bit scores, ordered by their float32 cosines. */
  search(p: PreparedQuery, n: number, rescore: number): { doc: DocumentBlock; row: number; score: number }[] {
    const { acc, cols, rowOf, docOf, scales, tagBits, overflow, pass, at, half } = this;
    const rows = rowOf.length;
    let m = 0;
    let low = 0;
    for (let i = 0; i < rows; i++) {
      if ((tagBits[i] & p.want) === 0 && overflow[i] === 0) continue;
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
    const items = best.items.map((it) => ({ ...it, score: fullScore(it.doc, it.row, p, this.dims) ?? it.score }));
    items.sort((a, b) => b.score - a.score);
    return items.slice(0, n);
  }
}
