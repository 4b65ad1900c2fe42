import type { PreparedQuery } from "./cacheBlocks.ts";

/** The indices of the m largest scores, largest first (m is small), into `out` (emptied first). */
export function topIndices(scores: Float32Array, m: number, out: number[] = []): number[] {
  out.length = 0;
  for (let i = 0; i < scores.length; i++) {
    let at = out.length;
    while (at > 0 && scores[out[at - 1]] < scores[i]) at--;
    if (at < m) {
      out.splice(at, 0, i);
      if (out.length > m) out.pop();
    }
  }
  return out;
}

/**
 * Positions 0..n-1 in order of their score, best first. Thousands of lists: one numeric sort of packed keys
 * (the score's rank in its high bits, the position in its low ones) instead of a comparator sort of boxed indices.
 * `keys` and `order` (at least n long): arrays to work in and answer in, kept by a caller that ranks at every search
 * (ivfProbe.ts); the first n of `order` are the answer.
 */
export function byScore(score: Float32Array, n = score.length, keys: Float64Array = new Float64Array(n), order: Int32Array = new Int32Array(n)): Int32Array {
  const room = 2 ** Math.ceil(Math.log2(Math.max(2, n))); // ≤ 2^20 lists (the snapshot's limit): keys stay below 2^53
  // scores are cosines in [-1, 1]: steps of 1e-7 keep their order (equal within 1e-7: the lower position first)
  for (let c = 0; c < n; c++) keys[c] = Math.round((1 - Math.max(-1, Math.min(1, score[c] || 0))) * 1e7) * room + c;
  (keys.length === n ? keys : keys.subarray(0, n)).sort();
  for (let i = 0; i < n; i++) order[i] = keys[i] % room;
  return order;
}

/**
 * Unit centroids as int8 codes with a scale each (value d of centroid c is codes[c·dims + d] × scales[c]), as the
 * rows are kept: 388 B a centroid at 384 dims instead of 1,536, which at 100k rows (5,060 lists) was ~78 B a chunk,
 * most of the index. Each coordinate errs by at most half a step (max |x| / 254): a list's score by well under 0.01,
 * far inside the margin between the lists a search probes and those it leaves (bench/ivf-recall.ts measures recall).
 */
export interface Int8Table {
  codes: Int8Array;
  scales: Float32Array;
}

/** `n` float vectors of `dims` (end to end) as an Int8Table. */
export function quantiseTable(m: Float32Array, dims: number): Int8Table {
  const n = dims ? Math.floor(m.length / dims) : 0;
  const codes = new Int8Array(n * dims);
  const scales = new Float32Array(n);
  for (let c = 0; c < n; c++) {
    let max = 0;
    for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(m[c * dims + d]));
    if (!(max > 0)) continue;
    const s = max / 127;
    for (let d = 0; d < dims; d++) codes[c * dims + d] = Math.round(m[c * dims + d] / s);
    scales[c] = s;
  }
  return { codes, scales };
}

/** Entry c of the table against v: four accumulators (the listing of every row and a search's ranking spend their time here). */
export function tableDot(t: Int8Table, c: number, v: ArrayLike<number>, dims: number): number {
  return codesDot(t.codes, c * dims, v, dims) * t.scales[c];
}

/** `v` · the `dims` codes of `codes` from `base`, unscaled: four accumulators (the fastest form measured, bench/ivf-dot.ts). */
export function codesDot(codes: Int8Array, base: number, v: ArrayLike<number>, dims: number): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  const tail = dims & 3;
  let d = 0;
  for (; d < dims - tail; d += 4) {
    a0 += codes[base + d] * v[d];
    a1 += codes[base + d + 1] * v[d + 1];
    a2 += codes[base + d + 2] * v[d + 2];
    a3 += codes[base + d + 3] * v[d + 3];
  }
  for (; d < dims; d++) a0 += codes[base + d] * v[d];
  return a0 + a1 + a2 + a3;
}

/** A query's dot product with entry c of the table: over its non-zero terms when sparse. */
export function tableQueryDot(t: Int8Table, c: number, p: PreparedQuery, dims: number): number {
  if (!p.sparse) return tableDot(t, c, p.q, dims);
  const base = c * dims;
  let dot = 0;
  for (let j = 0; j < p.nzIdx.length; j++) dot += p.nzVal[j] * t.codes[base + p.nzIdx[j]];
  return dot * t.scales[c];
}
