import { blockCodes, scoreRow, visible, type DocumentBlock, type PreparedQuery, type TopN } from "../../src/vectors/cacheBlocks.ts";

// The inverted-file index as it was before its two-level build (kept for bench/ivf-build.ts to measure beside the
// current one): one flat k-means over √N/2 centroids, every row scored against all of them when listed.

/**
 * An inverted-file index over a project's int8 rows: k centroids trained by
 * spherical k-means on a sample, each row listed under its nearest one. A
 * search scores the centroids, then scans the closest lists — every row in
 * them checked against the visible tags exactly as the full scan does — and
 * goes on to further lists until it holds n visible hits: filtering never
 * returns fewer hits than the visible set has, and a narrow visible set only
 * makes the search reach further (down to a full scan in the worst case).
 *
 * Why this and not HNSW or LanceDB's IVF_PQ: the npm registry has no
 * well-kept pure-JS HNSW (the maintained ones are native addons, which the
 * single executable cannot carry), LanceDB's own index answers through the
 * Lance decoder at several ms a query before any filter (bench/scale-load.ts
 * measures it), and lists over the rows the cache already holds cost ~16 B a
 * row and keep tag filtering exact inside the scan.
 */
export class IvfFlat {
  private readonly docs: DocumentBlock[][];
  private readonly rows: number[][];
  private liveRows = 0;
  private deadRows = 0;

  private constructor(
    readonly dims: number,
    /** k × dims, each a unit vector */
    private readonly centroids: Float32Array,
    readonly k: number,
  ) {
    this.docs = Array.from({ length: k }, () => []);
    this.rows = Array.from({ length: k }, () => []);
  }

  /** Memory of the lists (two array slots a row) and centroids. */
  get bytes(): number {
    return (this.liveRows + this.deadRows) * 16 + this.centroids.byteLength;
  }

  /**
   * Trains on `blocks` and lists their rows, yielding to the event loop between
   * steps (`pause`, which throws to abandon the build) so searches and writes go on meanwhile.
   */
  static async build(blocks: DocumentBlock[], dims: number, total: number, pause: () => Promise<void>): Promise<IvfFlat> {
    // √N/2 lists: at 100k rows, 158 lists of ~630 rows; training and listing stay linear in N
    const k = Math.max(8, Math.min(1024, Math.round(Math.sqrt(total) / 2)));
    const sample = sampleRows(blocks, Math.min(total, 24 * k), dims);
    const centroids = new Float32Array(k * dims);
    for (let c = 0; c < k; c++) centroids.set(sample[Math.floor((c * sample.length) / k)] ?? new Float32Array(dims), c * dims);
    const assign = new Int32Array(sample.length);
    for (let it = 0; it < 8; it++) {
      for (let i = 0; i < sample.length; i++) {
        assign[i] = nearest(centroids, k, dims, sample[i]);
        // a row against every centroid is k × dims multiplies (~60k at 100k rows): yield often, so a turn
        // arriving mid-build waits a few ms at most, never a whole k-means pass
        if (i % 128 === 127) await pause();
      }
      const sums = new Float32Array(k * dims);
      for (let i = 0; i < sample.length; i++) for (let d = 0; d < dims; d++) sums[assign[i] * dims + d] += sample[i][d];
      for (let c = 0; c < k; c++) {
        let norm = 0;
        for (let d = 0; d < dims; d++) norm += sums[c * dims + d] ** 2;
        if (norm === 0) continue; // an empty list keeps its old centroid
        const s = 1 / Math.sqrt(norm);
        for (let d = 0; d < dims; d++) centroids[c * dims + d] = sums[c * dims + d] * s;
      }
      await pause();
    }
    const index = new IvfFlat(dims, centroids, k);
    let since = 0;
    for (const b of blocks) {
      if (b.dead) continue;
      index.add(b);
      since += b.scales.length;
      if (since >= 128) {
        since = 0;
        await pause();
      }
    }
    return index;
  }

  add(block: DocumentBlock): void {
    const { dims, k, centroids } = this;
    for (let r = 0; r < block.scales.length; r++) {
      const c = nearest(centroids, k, dims, blockCodes(block, dims).subarray(r * dims, (r + 1) * dims));
      this.docs[c].push(block);
      this.rows[c].push(r);
    }
    this.liveRows += block.scales.length;
  }

  /** The block is already marked dead (its rows are skipped); its list entries are swept once they pile up. */
  remove(block: DocumentBlock): void {
    this.deadRows += block.scales.length;
    this.liveRows -= block.scales.length;
    if (this.deadRows > Math.max(1000, this.liveRows / 4)) this.sweep();
  }

  /** Offers the visible rows of the closest lists to `best`, at least `minShare` of the lists and then until it is full. */
  search(p: PreparedQuery, best: TopN, minShare: number): void {
    const { dims, k, centroids } = this;
    const score = new Float32Array(k);
    for (let c = 0; c < k; c++) {
      let dot = 0;
      const base = c * dims;
      if (p.sparse) for (let j = 0; j < p.nzIdx.length; j++) dot += p.nzVal[j] * centroids[base + p.nzIdx[j]];
      else for (let d = 0; d < dims; d++) dot += p.q[d] * centroids[base + d];
      score[c] = dot;
    }
    const order = Array.from({ length: k }, (_, c) => c).sort((a, b) => score[b] - score[a]);
    const minProbe = Math.max(1, Math.ceil(k * minShare));
    for (let i = 0; i < k; i++) {
      if (i >= minProbe && best.full) break;
      const docs = this.docs[order[i]];
      const rows = this.rows[order[i]];
      for (let j = 0; j < docs.length; j++) {
        const doc = docs[j];
        if (doc.dead || !visible(doc, rows[j], p) || p.exclude?.(doc.documentId)) continue;
        best.offer(scoreRow(doc, rows[j], p, dims), doc, rows[j]);
      }
    }
  }

  private sweep(): void {
    for (let c = 0; c < this.k; c++) {
      const docs: DocumentBlock[] = [];
      const rows: number[] = [];
      this.docs[c].forEach((d, j) => {
        if (d.dead) return;
        docs.push(d);
        rows.push(this.rows[c][j]);
      });
      this.docs[c] = docs;
      this.rows[c] = rows;
    }
    this.deadRows = 0;
  }
}

/** The centroid with the largest dot product (the rows and centroids are unit vectors, so: the closest). */
function nearest(centroids: Float32Array, k: number, dims: number, v: ArrayLike<number>): number {
  let best = 0;
  let bestDot = -Infinity;
  for (let c = 0; c < k; c++) {
    let dot = 0;
    const base = c * dims;
    for (let d = 0; d < dims; d++) dot += centroids[base + d] * v[d];
    if (dot > bestDot) {
      bestDot = dot;
      best = c;
    }
  }
  return best;
}

/** Up to m rows spread evenly over the blocks, as unit float vectors. */
function sampleRows(blocks: DocumentBlock[], m: number, dims: number): Float32Array[] {
  let total = 0;
  for (const b of blocks) if (!b.dead) total += b.scales.length;
  const step = Math.max(1, total / Math.max(1, m));
  const out: Float32Array[] = [];
  let next = 0;
  let at = 0;
  for (const b of blocks) {
    if (b.dead) continue;
    const codes = blockCodes(b, dims);
    for (let r = 0; r < b.scales.length; r++, at++) {
      if (at < next) continue;
      next += step;
      const v = new Float32Array(dims);
      for (let d = 0; d < dims; d++) v[d] = codes[r * dims + d] * b.scales[r];
      out.push(v);
    }
  }
  return out;
}
