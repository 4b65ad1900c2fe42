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
 * The lists a search probes, best first: `first` ranks as far as `minProbe` of them at least, `rest` every other
 * list after them, when the caller asks for more.
 *
 * Scoring all k centroids a query is a cost of its own at large N (8,192 at 1M rows: ~3 M multiplies, as much as
 * scanning ~8,000 rows), so the lists are ranked through the coarse level: the √k coarse centroids first, then only
 * the lists of the query's nearest groups, enough groups to hold `margin` × minProbe lists. Past them (a narrow tag
 * filter that leaves too few visible rows there) the rest of the lists follow in order of their own score, so a
 * search still reaches every list in the worst case. `margin` 0: every centroid scored (as the index was).
 *
 * Why one ranker an index, its arrays kept from search to search: a search at 1M made ~70 KB of scores, keys and
 * orders and dropped them, and that garbage, collected on other threads while a million rows' objects sit in the
 * heap, was the tail of the query's CPU (BENCHMARKS.md "the index's tail at 1M"). A search runs synchronously from
 * start to end, so one search at a time uses them.
 */
export class ProbeRanker {
  /** the lists in the order a search probes them: `ranked` of them so far */
  readonly order: Int32Array;
  ranked = 0;
  /** lists ranked by `first` carry the search's stamp: `rest` leaves them out without clearing an array a search */
  private readonly mark: Uint32Array;
  private stamp = 0;
  private readonly score: Float32Array;
  private readonly ids: Int32Array;
  private readonly groupScore: Float32Array;
  private readonly keys: Float64Array;
  private readonly sorted: Int32Array;

  constructor(private readonly ix: IvfCentroids) {
    const { k } = ix;
    const most = Math.max(k, ix.members.length);
    this.order = new Int32Array(k);
    this.mark = new Uint32Array(k);
    this.score = new Float32Array(k);
    this.ids = new Int32Array(k);
    this.groupScore = new Float32Array(ix.members.length);
    this.keys = new Float64Array(most);
    this.sorted = new Int32Array(most);
  }

  /** Bytes of its arrays. */
  get bytes(): number {
    return this.order.byteLength + this.mark.byteLength + this.score.byteLength + this.ids.byteLength + this.groupScore.byteLength + this.keys.byteLength + this.sorted.byteLength;
  }

  /** Ranks the lists of the query's nearest coarse groups (none when the coarse level is not used); returns how many. */
  first(p: PreparedQuery, minProbe: number, margin = COARSE_MARGIN): number {
    const { dims, k, centroids, coarse, members } = this.ix;
    const { order, mark, ids, score, groupScore, keys, sorted } = this;
    this.ranked = 0;
    if (++this.stamp === 0xffffffff) {
      mark.fill(0);
      this.stamp = 1;
    }
    const k1 = members.length;
    const want = minProbe * margin;
    if (!(margin > 0 && k1 > 1 && want < k)) return 0;
    for (let g = 0; g < k1; g++) groupScore[g] = tableQueryDot(coarse, g, p, dims);
    byScore(groupScore, k1, keys, sorted);
    let n = 0;
    for (let i = 0; i < k1 && n < want; i++) {
      const m = members[sorted[i]];
      for (let j = 0; j < m.length; j++) ids[n++] = m[j];
    }
    for (let i = 0; i < n; i++) score[i] = tableQueryDot(centroids, ids[i], p, dims);
    byScore(score, n, keys, sorted);
    for (let i = 0; i < n; i++) {
      const c = ids[sorted[i]];
      order[i] = c;
      mark[c] = this.stamp;
    }
    this.ranked = n;
    return n;
  }

  /** Ranks every list `first` left out, by its own score, after the ones it ranked; returns the lists ranked in all (k). */
  rest(p: PreparedQuery): number {
    const { dims, k, centroids } = this.ix;
    const { order, mark, ids, score, keys, sorted, stamp } = this;
    const from = this.ranked;
    let n = 0;
    for (let c = 0; c < k; c++) {
      if (from > 0 && mark[c] === stamp) continue;
      score[n] = tableQueryDot(centroids, c, p, dims);
      ids[n++] = c;
    }
    byScore(score, n, keys, sorted);
    for (let i = 0; i < n; i++) order[from + i] = ids[sorted[i]];
    this.ranked = from + n;
    return this.ranked;
  }
}

/** The lists in probe order, one by one (tests and benches; a search ranks through its index's ProbeRanker). */
export function* probeOrder(ix: IvfCentroids, p: PreparedQuery, minProbe: number, margin = COARSE_MARGIN): Generator<number> {
  const r = new ProbeRanker(ix);
  const n = r.first(p, minProbe, margin);
  for (let i = 0; i < n; i++) yield r.order[i];
  const all = r.rest(p);
  for (let i = n; i < all; i++) yield r.order[i];
}
