import type { PreparedQuery } from "./cacheBlocks.ts";
import { byScore, tableQueryDot, type Int8Table } from "./ivfMath.ts";

/** The trained centroids a search ranks: k fine ones (the lists), √k coarse ones, and the lists each coarse one holds. */
export interface IvfCentroids {
  dims: number;
  k: number;
  centroids: Int8Table;
  coarse: Int8Table;
  members: Int32Array[];
}

/**
 * Lists ranked from the coarse groups are this many times the lists a search must probe: a row is listed under its
 * nearest list among its three nearest coarse groups, so the lists nearest a query sit in groups a few places down
 * the query's own ranking of them, not only in its nearest one. On real MiniLM vectors at 100k rows (10 % of the lists
 * probed) recall@4 was 0.983 with every centroid scored, 0.980 with margin 5, 0.963 with margin 3 (bench/ivf-recall.ts).
 */
export const COARSE_MARGIN = 5;

/**
 * The lists a search probes, best first, as far as `minProbe` of them at least, then on as the caller asks.
 *
 * Scoring all k centroids a query is a cost of its own at large N (8,192 at 1M rows: ~3 M multiplies, as much as
 * scanning ~8,000 rows), so the lists are ranked through the coarse level: the √k coarse centroids first, then only
 * the lists of the query's nearest groups, enough groups to hold `margin` × minProbe lists. Past them (a narrow tag
 * filter that leaves too few visible rows there) the rest of the lists follow in order of their own score, so a
 * search still reaches every list in the worst case. `margin` 0: every centroid scored (as the index was).
 */
export function* probeOrder(ix: IvfCentroids, p: PreparedQuery, minProbe: number, margin = COARSE_MARGIN): Generator<number> {
  const { dims, k, centroids, coarse, members } = ix;
  const k1 = members.length;
  const want = minProbe * margin;
  const taken = new Uint8Array(k);
  const score = new Float32Array(k);
  let first: Int32Array | null = null;
  if (margin > 0 && k1 > 1 && want < k) {
    const gs = new Float32Array(k1);
    for (let g = 0; g < k1; g++) gs[g] = tableQueryDot(coarse, g, p, dims);
    const ids: number[] = [];
    for (const g of byScore(gs)) {
      if (ids.length >= want) break;
      for (const c of members[g]) ids.push(c);
    }
    const sub = new Float32Array(ids.length);
    for (let i = 0; i < ids.length; i++) sub[i] = tableQueryDot(centroids, ids[i], p, dims);
    first = byScore(sub).map((i) => ids[i]);
    for (const c of first) {
      taken[c] = 1;
      yield c;
    }
  }
  // every list not ranked yet, by its own score (all of them when the coarse level was not used)
  let n = 0;
  const rest = new Int32Array(k - (first?.length ?? 0));
  for (let c = 0; c < k; c++) {
    if (taken[c]) continue;
    score[n] = tableQueryDot(centroids, c, p, dims);
    rest[n++] = c;
  }
  for (const i of byScore(score, n)) yield rest[i];
}
