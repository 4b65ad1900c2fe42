import type { PreparedQuery } from "./cacheBlocks.ts";

/** The dot product of v with the dims floats of m from base on: four accumulators, the index spends its time here. */
export function dotAt(m: Float32Array, base: number, v: ArrayLike<number>, dims: number): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  const tail = dims & 3;
  let d = 0;
  for (; d < dims - tail; d += 4) {
    a0 += m[base + d] * v[d];
    a1 += m[base + d + 1] * v[d + 1];
    a2 += m[base + d + 2] * v[d + 2];
    a3 += m[base + d + 3] * v[d + 3];
  }
  for (; d < dims; d++) a0 += m[base + d] * v[d];
  return a0 + a1 + a2 + a3;
}

/** A query's dot product with the centroid at `base`: over its non-zero terms when sparse. */
export function queryDot(m: Float32Array, base: number, p: PreparedQuery, dims: number): number {
  if (!p.sparse) return dotAt(m, base, p.q, dims);
  let dot = 0;
  for (let j = 0; j < p.nzIdx.length; j++) dot += p.nzVal[j] * m[base + p.nzIdx[j]];
  return dot;
}

/** The indices of the m largest scores, largest first (m is small). */
export function topIndices(scores: Float32Array, m: number): number[] {
  const out: number[] = [];
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
 */
export function byScore(score: Float32Array, n = score.length): Int32Array {
  const room = 2 ** Math.ceil(Math.log2(Math.max(2, n))); // ≤ 2^20 lists (the snapshot's limit): keys stay below 2^53
  const keys = new Float64Array(n);
  // scores are cosines in [-1, 1]: steps of 1e-7 keep their order (equal within 1e-7: the lower position first)
  for (let c = 0; c < n; c++) keys[c] = Math.round((1 - Math.max(-1, Math.min(1, score[c] || 0))) * 1e7) * room + c;
  keys.sort();
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = keys[i] % room;
  return order;
}
