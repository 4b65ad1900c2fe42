import { rowValues, rowVector, type DocumentBlock, type PreparedQuery, type TopN } from "./cacheBlocks.ts";
import { IvfListStore } from "./ivfLists.ts";
import { quantiseTable, tableDot, topIndices, type Int8Table } from "./ivfMath.ts";
import { COARSE_MARGIN, ProbeRanker } from "./ivfProbe.ts";

/**
 * An inverted-file index over a project's int8 rows: k centroids trained by
 * spherical k-means on a sample, each row listed under its nearest one. A
 * search scores the centroids (through the coarse level: ivfProbe.ts), then scans the closest lists — every row in
 * them checked against the visible tags exactly as the full scan does — and
 * goes on to further lists until it holds n visible hits: filtering never
 * returns fewer hits than the visible set has, and a narrow visible set only
 * makes the search reach further (down to a full scan in the worst case).
 *
 * Why this and not HNSW or LanceDB's IVF_PQ: the npm registry has no
 * well-kept pure-JS HNSW (the maintained ones are native addons, which the
 * single executable cannot carry), LanceDB's own index answers through the
 * Lance decoder at several ms a query before any filter (bench/scale-load.ts
 * measures it), and lists over the rows the cache already holds cost ~25 B a
 * row at 100k (4 B entries, int8 centroids: ivfLists.ts, ivfMath.ts), keep the dense rows' codes in list order (moved
 * from their blocks, not copied), and keep tag filtering exact inside the scan.
 */
export class IvfIndex {
  private readonly lists: IvfListStore;
  private liveRows = 0;

  private deadRows = 0;
  /** a search's ranking of the lists, its arrays kept from one search to the next (ivfProbe.ts says why) */
  private ranker: ProbeRanker | null = null;
  /** the listing of a row's scratch: its coarse groups' scores, and the nearest of them */
  private readonly groupScore: Float32Array;
  private readonly nearGroups: number[] = [];

  private constructor(
    readonly dims: number,
    /** k × dims unit vectors, in int8 codes with a scale each (ivfMath.ts Int8Table says why) */
    readonly centroids: Int8Table,
    readonly k: number,
    /** the coarse level: its unit centroids, and the lists (fine centroids) each one holds */
    readonly coarse: Int8Table,
    readonly members: Int32Array[],
    lists?: IvfLists,
    private readonly build: Required<IvfBuildOptions> = BUILD_DEFAULTS,
    freed?: (bytes: number) => void,
  ) {
    this.lists = new IvfListStore(k, dims, freed);
    this.groupScore = new Float32Array(members.length);
    if (!lists) return;
    const first = new Map<DocumentBlock, number>();
    for (let c = 0; c < k; c++) {
      const docs = lists.docs[c];
      for (let j = 0; j < docs.length; j++) {
        let f = first.get(docs[j]);
        if (f === undefined) first.set(docs[j], (f = this.lists.slotsFor(docs[j])));
        this.lists.push(c, f, lists.rows[c][j]);
        this.liveRows += docs[j].dead ? 0 : 1;
      }
    }
    this.lists.compact();
  }

  /**
   * What a snapshot file keeps of it (ivfSnapshot.ts): the trained centroids and the lists as they stand now,
   * copied (a save reads them in the background while writes go on changing the index).
   */
  parts(): IvfParts {
    const { k, centroids, coarse, members } = this;
    const docs: DocumentBlock[][] = [];
    const rows: number[][] = [];
    for (let c = 0; c < k; c++) {
      const d: DocumentBlock[] = [];
      const r: number[] = [];
      this.lists.each(c, (doc, row) => {
        d.push(doc);
        r.push(row);
      });
      docs.push(d);
      rows.push(r);
    }
    return { k, centroids, coarse, members, lists: { docs, rows } };
  }

  /**
   * An index as a snapshot file kept it, over the restored blocks (checked by ivfSnapshot.ts before it gets here).
   * `freed`: told the bytes of the blocks' codes it takes over (ivfLists.ts), here and at each later compaction.
   */
  static fromParts(dims: number, p: IvfParts, freed?: (bytes: number) => void): IvfIndex {
    return new IvfIndex(dims, p.centroids, p.k, p.coarse, p.members, p.lists, BUILD_DEFAULTS, freed);
  }

  /** Bytes of the dense rows' codes (with scale, tag bits, position) that the index holds in list order instead of their blocks. */
  get rowBytes(): number {
    return this.lists.rowBytes;
  }

  /** Memory of the lists (4 B a row: ivfLists.ts), the rows moved into them, the int8 centroids, and a search's arrays. */
  get bytes(): number {
    const table = (t: Int8Table) => t.codes.byteLength + t.scales.byteLength;
    return this.lists.bytes + table(this.centroids) + table(this.coarse) + this.k * 4 + (this.ranker?.bytes ?? 0);
  }

  /** Rows in each list (tests check the lists cover every row once). */
  listSizes(): number[] {
    return Array.from({ length: this.k }, (_, c) => this.lists.size(c));
  }

  /**
   * Trains on `blocks` and lists their rows, yielding to the event loop between
   * steps (`pause`, which throws to abandon the build) so searches and writes go on meanwhile.
   *
   * Two levels, so that a million rows list in seconds, not minutes: ~√k coarse centroids, then each coarse
   * group's share of the k lists trained on its own sample rows. A row is listed under the nearest list of its
   * nearest coarse centroid: ~2√k dot products instead of k (at 1M rows and 1,000 lists: 64 instead of 1,000).
   * A search ranks the lists of the query's nearest coarse groups, a margin over the share it probes (ivfProbe.ts).
   */
  static async build(blocks: DocumentBlock[], dims: number, total: number, pause: () => Promise<void>, lists = defaultLists(total), opts: IvfBuildOptions = {}, freed?: (bytes: number) => void): Promise<IvfIndex> {
    const steps = IvfIndex.steps(blocks, dims, total, lists, opts, freed);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      await pause();
    }
  }

  /** The build as steps of a few ms each (a `yield` between two), for a caller that decides when each runs (buildTurns.ts). */
  static *steps(blocks: DocumentBlock[], dims: number, total: number, lists = defaultLists(total), opts: IvfBuildOptions = {}, freed?: (bytes: number) => void): Generator<void, IvfIndex> {
    const o = { ...BUILD_DEFAULTS, ...opts };
    const k = Math.max(1, Math.min(lists, total));
    const sample = sampleRows(blocks, Math.min(total, o.samplePerList * k), dims);
    const k1 = Math.max(1, Math.min(sample.length, Math.round(Math.sqrt(k))));
    const coarse = yield* kmeans(spread(sample, COARSE_SAMPLE_PER_CENTROID * k1), k1, dims, o.iterations);
    // each sample row to its coarse group, and each group its share of the k lists
    const groups: Float32Array[][] = Array.from({ length: k1 }, () => []);
    for (let i = 0; i < sample.length; i++) {
      groups[nearestOf(coarse, null, dims, sample[i])].push(sample[i]);
      if (i % 512 === 511) yield;
    }
    const centroids = new Float32Array(k * dims);
    const members: Int32Array[] = [];
    let next = 0;
    let seen = 0;
    for (let g = 0; g < k1; g++) {
      seen += groups[g].length;
      // cumulative rounding: the shares add up to k exactly
      const upTo = g === k1 - 1 ? k : Math.round((k * seen) / Math.max(1, sample.length));
      const kg = Math.min(Math.max(upTo - next, groups[g].length ? 1 : 0), groups[g].length, k - next);
      if (kg === 0) {
        members.push(new Int32Array(0));
        continue;
      }
      centroids.set(yield* kmeans(groups[g], kg, dims, o.iterations), next * dims);
      members.push(Int32Array.from({ length: kg }, (_, j) => next + j));
      next += kg;
    }
    const index = new IvfIndex(dims, quantiseTable(centroids.subarray(0, next * dims), dims), next, quantiseTable(coarse, dims), members, undefined, o, freed);
    // the sample rows (8 a list, 1.5 KB each: ~600 B a row of the project at 100k rows) let go now: something still holding
    // the finished build (its generator, a stale pointer the collector finds on the stack) kept them all alive
    sample.length = 0;
    groups.length = 0;
    let since = 0;
    for (const b of blocks) {
      if (b.dead) continue;
      index.list(b);
      since += b.n;
      if (since >= 256) {
        since = 0;
        yield;
      }
    }
    index.lists.compact();
    return index;
  }

  /** Lists a block's rows; the lists are compacted once enough rows wait beyond the compacted ones (ivfLists.ts). */
  add(block: DocumentBlock): void {
    this.list(block);
    if (this.lists.waiting > Math.max(1024, this.liveRows / 8)) this.lists.compact();
  }

  private list(block: DocumentBlock): void {
    const { dims } = this;
    const scratch = new Float32Array(dims);
    const first = this.lists.slotsFor(block);
    for (let r = 0; r < block.n; r++) this.lists.push(this.nearestList(rowVector(block, r, dims, scratch)), first, r);
    this.liveRows += block.n;
  }

  /**
   * The list a row goes to: the nearest among the lists of its `assignGroups` nearest coarse groups. With one
   * group, a row near a group's border went to a list of the wrong side and no search found it where its
   * centroid says it is (bench/ivf-recall.ts: a third of the misses on real MiniLM vectors); three make that rare.
   */
  private nearestList(v: ArrayLike<number>): number {
    const { dims, centroids, coarse, members } = this;
    const g = this.build.assignGroups;
    const k1 = members.length;
    const gs = this.groupScore;
    for (let j = 0; j < k1; j++) gs[j] = tableDot(coarse, j, v, dims);
    let best = -1;
    let bestDot = -Infinity;
    // a coarse centroid no sample row chose has no lists of its own: its rows look further down (all lists at worst)
    const near = topIndices(gs, Math.min(Math.max(1, g), k1), this.nearGroups);
    for (let i = 0; i < near.length; i++) {
      const m = members[near[i]];
      for (let j = 0; j < m.length; j++) {
        const d = tableDot(centroids, m[j], v, dims);
        if (d > bestDot) (bestDot = d), (best = m[j]);
      }
    }
    if (best >= 0) return best;
    for (let c = 0; c < this.k; c++) {
      const d = tableDot(centroids, c, v, dims);
      if (d > bestDot) (bestDot = d), (best = c);
    }
    return best;
  }

  /** The block is already marked dead (its rows are skipped); its list entries are swept once they pile up. */
  remove(block: DocumentBlock): void {
    this.deadRows += block.n;
    this.liveRows -= block.n;
    if (this.deadRows > Math.max(1000, this.liveRows / 4)) {
      this.lists.compact();
      this.deadRows = 0;
    }
  }

  /**
   * Offers the visible rows of the closest lists to `best`, at least `minShare` of the lists and then until it is
   * full; the lists ranked through the coarse level (ivfProbe.ts; `margin` 0: every centroid scored). The lists
   * past the coarse level's are ranked only when the search goes on past them (a narrow filter).
   */
  search(p: PreparedQuery, best: TopN, minShare: number, trace?: { lists: Set<number>; rows: number }, margin = COARSE_MARGIN): void {
    const minProbe = Math.max(1, Math.ceil(this.k * minShare));
    const r = (this.ranker ??= new ProbeRanker(this));
    this.lists.prepare(p);
    let ranked = r.first(p, minProbe, margin);
    let all = ranked === 0;
    if (all) ranked = r.rest(p);
    for (let i = 0; ; i++) {
      if (i >= minProbe && best.full) break;
      if (i === ranked) {
        if (all) break;
        ranked = r.rest(p);
        all = true;
        if (i === ranked) break;
      }
      const list = r.order[i];
      const walked = this.lists.scan(list, p, best);
      if (trace) {
        trace.lists.add(list);
        trace.rows += walked;
      }
    }
  }
}

/** Each list's rows: block and row within it, side by side. */
export interface IvfLists {
  docs: DocumentBlock[][];
  rows: number[][];
}

export interface IvfParts {
  k: number;
  centroids: Int8Table;
  coarse: Int8Table;
  members: Int32Array[];
  lists: IvfLists;
}

/** Sample rows per list the k-means trains on, and per coarse centroid. */
const COARSE_SAMPLE_PER_CENTROID = 64;

/** How an index is trained and its rows listed (the defaults are what the server builds; benches compare others). */
export interface IvfBuildOptions {
  /** sample rows per list the k-means trains on */
  samplePerList?: number;
  iterations?: number;
  /** a row is listed under its nearest list among the lists of this many nearest coarse groups */
  assignGroups?: number;
}

/**
 * 8 sample rows a list: with 16·√N lists, 24 a list trained on every row up to ~400,000 (k-means over all of them, most
 * of a build's CPU); 8 train on a third of the rows at 100k for 0.44× the build time and recall@4 0.977 against 0.983
 * on real MiniLM vectors (bench/ivf-recall.ts, every centroid scored).
 */
const BUILD_DEFAULTS: Required<IvfBuildOptions> = { samplePerList: 8, iterations: 8, assignGroups: 3 };

/**
 * 16·√N lists (5,060 at 100k rows, lists of ~20 rows; capped at 8,192, lists of ~120 rows at 1M). Why so many
 * small lists: a lore chunk's vector mixes several sentences, and a question's true neighbours are the chunks that
 * hold its sentence, listed by their other ones; under √N big lists they sat under centroids far from the question,
 * and with 10 % of the rows scanned recall@4 on real MiniLM vectors at 100k was 0.90 (bench/ivf-recall.ts). Small
 * lists put them closer to it: 0.97 with 8·√N lists, 0.98 with 16·√N at the same 10 % of the rows. Scoring the
 * centroids costs more (k dot products a query, ~2 M multiplies at 100k, half the scan's), and training too.
 */
export function defaultLists(rows: number): number {
  return Math.max(8, Math.min(8192, Math.round(LISTS_PER_ROOT * Math.sqrt(rows))));
}

const LISTS_PER_ROOT = 16;

/** Spherical k-means: k unit centroids of `rows` (seeded with evenly spaced rows), yielding between passes. */
function* kmeans(rows: Float32Array[], k: number, dims: number, iterations: number): Generator<void, Float32Array> {
  const centroids = new Float32Array(k * dims);
  for (let c = 0; c < k; c++) centroids.set(rows[Math.floor((c * rows.length) / k)] ?? new Float32Array(dims), c * dims);
  const assign = new Int32Array(rows.length);
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < rows.length; i++) {
      assign[i] = nearestOf(centroids, null, dims, rows[i]);
      // a row against every centroid: yield often, so a turn arriving mid-build waits a few ms at most
      if (i % 128 === 127) yield;
    }
    const sums = new Float32Array(k * dims);
    for (let i = 0; i < rows.length; i++) for (let d = 0; d < dims; d++) sums[assign[i] * dims + d] += rows[i][d];
    for (let c = 0; c < k; c++) {
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += sums[c * dims + d] ** 2;
      if (norm === 0) continue; // an empty cluster keeps its old centroid
      const s = 1 / Math.sqrt(norm);
      for (let d = 0; d < dims; d++) centroids[c * dims + d] = sums[c * dims + d] * s;
    }
    yield;
  }
  return centroids;
}

/**
 * Among `ids` (null: all), the centroid with the largest dot product with v (rows and centroids are unit
 * vectors, so: the closest). Four accumulators: the listing of a million rows spends its time here. The dot
 * product is ivfMath's tableDot, on floats, written inline: the call cost the build 1.16× its CPU (bench/ivf-build.ts, 40k rows).
 */
function nearestOf(centroids: Float32Array, ids: Int32Array | null, dims: number, v: ArrayLike<number>): number {
  const n = ids ? ids.length : centroids.length / dims;
  let best = ids ? ids[0] : 0;
  let bestDot = -Infinity;
  const tail = dims & 3;
  for (let j = 0; j < n; j++) {
    const c = ids ? ids[j] : j;
    const base = c * dims;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let d = 0;
    for (; d < dims - tail; d += 4) {
      a0 += centroids[base + d] * v[d];
      a1 += centroids[base + d + 1] * v[d + 1];
      a2 += centroids[base + d + 2] * v[d + 2];
      a3 += centroids[base + d + 3] * v[d + 3];
    }
    for (; d < dims; d++) a0 += centroids[base + d] * v[d];
    const dot = a0 + a1 + a2 + a3;
    if (dot > bestDot) {
      bestDot = dot;
      best = c;
    }
  }
  return best;
}

/** Up to m of the rows, evenly spaced. */
function spread<T>(rows: T[], m: number): T[] {
  if (rows.length <= m) return rows;
  return Array.from({ length: m }, (_, i) => rows[Math.floor((i * rows.length) / m)]);
}

/** Up to m rows spread evenly over the blocks, as unit float vectors. */
function sampleRows(blocks: DocumentBlock[], m: number, dims: number): Float32Array[] {
  let total = 0;
  for (const b of blocks) if (!b.dead) total += b.n;
  const step = Math.max(1, total / Math.max(1, m));
  const out: Float32Array[] = [];
  let next = 0;
  let at = 0;
  for (const b of blocks) {
    if (b.dead) continue;
    for (let r = 0; r < b.n; r++, at++) {
      if (at < next) continue;
      next += step;
      out.push(rowValues(b, r, dims, new Float32Array(dims)));
    }
  }
  return out;
}
