// Why the IVF index misses on real MiniLM vectors, and what each change wins back: over the vectors
// bench/dense-bits.ts embedded and cached (--cache, the same world and queries), per index variant, recall@4 against
// the float32 exact scan by ids and by score (a hit whose exact score reaches the exact 4th − 1e-4 counts: the world
// repeats sentences, so near-equal chunks tie), rows scanned a query and CPU per query, side by side in one run; and
// each missed true neighbour split by cause: (c) its row is not listed under its truly nearest list (the coarse
// level's assignment), (p) its list was not probed although the row is listed under its nearest, (d) it was
// scanned but the int8 ranking cut it before the float32 re-score; unfiltered queries beside filtered; (e) the
// lists' size distribution.
// Usage: bun bench/ivf-recall.ts --chunks 100000 --cache /tmp/minilm-100k.bin [--queries 300] [--variants old,new]
//        [--margins 0,5: each index searched with every centroid scored (0) and with the lists ranked from its coarse groups]
//        [--ask 150: only the first 150 of the cached queries asked (--queries must stay what the cache was made with)]
//        [--before /tmp/old-checkout: variant "before" is that checkout's index, built over its own cache (its own
//        blocks: the index now moves dense rows' codes out of the blocks it lists), searched in the same loop]
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { prepareQuery, rowId, TopN, type DocumentBlock } from "../src/vectors/cacheBlocks.ts";
import { defaultLists, IvfIndex, type IvfBuildOptions } from "../src/vectors/IvfIndex.ts";
import { tableDot } from "../src/vectors/ivfMath.ts";
import { ProjectVectorCache, probeShareFor } from "../src/vectors/ProjectVectorCache.ts";
import { bigWorld } from "./support/bigWorld.ts";

const { values: args } = parseArgs({
  options: { chunks: { type: "string", default: "100000" }, queries: { type: "string", default: "300" }, cache: { type: "string", default: "/tmp/minilm-100k.bin" }, variants: { type: "string", default: "" }, ask: { type: "string", default: "" }, margins: { type: "string", default: "0,5" }, before: { type: "string", default: "" } },
});
const N = Number(args.chunks);
const world = bigWorld({ chunks: N, queries: Number(args.queries) });
const dims = 384;
const total = N + world.queries.length;
const b = readFileSync(args.cache!);
if (b.byteLength !== total * dims * 4) throw new Error(`${args.cache} does not hold this world's vectors: run bench/dense-bits.ts --chunks ${N} --cache ${args.cache} first`);
const flat = new Float32Array(b.buffer, b.byteOffset, total * dims).slice();
for (let i = 0; i < total; i++) {
  const v = flat.subarray(i * dims, (i + 1) * dims);
  const n = Math.hypot(...v) || 1;
  for (let d = 0; d < dims; d++) v[d] /= n;
}
const row = (i: number) => flat.subarray(i * dims, (i + 1) * dims);
const dot = (a: ArrayLike<number>, bb: ArrayLike<number>) => {
  let s = 0;
  for (let d = 0; d < dims; d++) s += a[d] * bb[d];
  return s;
};

// the rows in the cache as the server holds them (int8 codes, float32 re-score); the index is trained per variant
const cache = new ProjectVectorCache(dims, "p", { indexMinRows: 0 });
const byDoc = new Map<string, number[]>();
world.chunks.forEach((c, i) => byDoc.set(c.documentId, [...(byDoc.get(c.documentId) ?? []), i]));
for (const [doc, rows] of byDoc) cache.setDocument(doc, rows.map((i) => ({ ...world.chunks[i], projectId: "p", locationId: null })), rows.map((i) => row(i)));
const blocks: DocumentBlock[] = cache.blocks();
// the code as it was, over a cache of its own (imported from the checkout --before names)
type Built = { k: number; bytes: number; search: IvfIndex["search"]; parts?: IvfIndex["parts"]; listSizes(): number[] };
const old = args.before
  ? {
      IvfIndex: (await import(`${args.before}/src/vectors/IvfIndex.ts`)).IvfIndex as { build(b: DocumentBlock[], dims: number, total: number, pause: () => Promise<void>): Promise<Built> },
      cache: new (await import(`${args.before}/src/vectors/ProjectVectorCache.ts`)).ProjectVectorCache(dims, "p", { indexMinRows: 0 }) as ProjectVectorCache,
    }
  : null;
if (old) for (const [doc, rows] of byDoc) old.cache.setDocument(doc, rows.map((i) => ({ ...world.chunks[i], projectId: "p", locationId: null })), rows.map((i) => row(i)));
const indexOf = (blk: DocumentBlock, r: number) => Number(rowId(blk, r).slice(1));

interface Variant {
  label: string;
  build: IvfBuildOptions;
  /** share of the lists probed at least; null: as the server decides (probeShareFor) */
  share: number | null;
  rescore: number;
  /** lists (absent: defaultLists) */
  lists?: number;
}
const root = Math.round(Math.sqrt(N));
const presets: Record<string, Variant> = {
  old: { label: "as it was: √N lists, a row under the nearest list of its nearest coarse group", build: { assignGroups: 1 }, share: 0.2, rescore: 4, lists: root },
  assign3: { label: "√N lists, a row under its nearest list among 3 coarse groups", build: { assignGroups: 3 }, share: null, rescore: 4, lists: root },
  train: { label: "√N lists, 3 groups, 16 iterations on 64 sample rows a list", build: { assignGroups: 3, iterations: 16, samplePerList: 64 }, share: null, rescore: 4, lists: root },
  new: { label: "the index now (IvfIndex defaults)", build: {}, share: null, rescore: 4 },
  before: { label: "the index as it was (--before's code)", build: {}, share: null, rescore: 4 },
  sample8: { label: "the index now, trained on 8 sample rows a list (instead of 24)", build: { samplePerList: 8 }, share: null, rescore: 4 },
};
const chosen = (args.variants || "old,new").split(",").map((s) => {
  // name[:share[:rescore[:lists as a multiple of √N]]]
  const [name, share, rescore, listsX] = s.split(":");
  const v = presets[name];
  if (!v) throw new Error(`unknown variant ${name}: ${Object.keys(presets).join(", ")}`);
  return { ...v, label: v.label + (listsX ? `, ${listsX}×√N lists` : "") + (share ? `, ≥ ${Number(share) * 100} % probed` : "") + (rescore ? `, re-score ${rescore}×n` : ""), share: share ? Number(share) : v.share, rescore: rescore ? Number(rescore) : v.rescore, lists: listsX ? Math.round(root * Number(listsX)) : v.lists };
});

// the cache gives tags bits in the order it first meets them
const tagOrder: string[] = [];
for (const c of world.chunks) for (const t of c.tags) if (!tagOrder.includes(t)) tagOrder.push(t);

// the exact answer per query, over its visible rows
// each query twice: over its random tag set, and over every tag (unfiltered)
const margins = args.margins!.split(",").map(Number);
const asked = world.queries.slice(0, Number(args.ask) || world.queries.length);
const qs = [...asked.map((q, qi) => ({ q, qi, all: false })), ...asked.map((q, qi) => ({ q, qi, all: true }))].map(({ q, qi, all }) => {
  const tags = new Set(all ? world.tags : q.tags);
  const qv = row(N + qi);
  const vis: number[] = [];
  world.chunks.forEach((c, i) => c.tags.some((t) => tags.has(t)) && vis.push(i));
  const scored = vis.map((i) => ({ i, s: dot(qv, row(i)) })).sort((a, b2) => b2.s - a.s);
  return { tags, qv, top4: scored.slice(0, 4), kth: scored[3]?.s ?? -Infinity, share: vis.length / N };
});

const pct = (xs: number[], p: number) => [...xs].sort((a, b2) => a - b2)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
console.log(`\n${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}; all-MiniLM-L6-v2 vectors of ${N.toLocaleString("en")} chunks (${args.cache}), ${qs.length} queries (visible share p50 ${pct(qs.map((q) => q.share), 0.5).toFixed(2)}, min ${Math.min(...qs.map((q) => q.share)).toFixed(2)}); n = 20`);
const out: string[] = [];
const causes: string[] = [];
const sizes: string[] = [];
for (const v of chosen) {
  const t0 = performance.now();
  const isOld = v.label.startsWith("the index as it was (--before");
  if (isOld && !old) throw new Error("variant before needs --before <checkout>");
  const index: Built = isOld ? await old!.IvfIndex.build(old!.cache.blocks(), dims, N, () => Promise.resolve()) : await IvfIndex.build(blocks, dims, N, () => Promise.resolve(), v.lists ?? defaultLists(N), v.build);
  const buildMs = performance.now() - t0;
  const share = v.share ?? probeShareFor(N);
  console.error(`${v.label}: built in ${(buildMs / 1000).toFixed(1)} s, ${(index.bytes / N).toFixed(1)} B a chunk${"rowBytes" in index ? ` (${((index.bytes - (index as IvfIndex).rowBytes) / N).toFixed(1)} B without the rows' codes it holds in list order)` : ""}`);
  // where each row is listed, and its truly nearest list (the index now only: the cause split reads its int8 centroids)
  const parts = isOld ? null : index.parts!();
  const listsOf: number[][] = Array.from({ length: N }, () => []);
  parts?.lists.docs.forEach((docs, c) => docs.forEach((blk, j) => listsOf[indexOf(blk, parts.lists.rows[c][j])].push(c)));
  const nearestList = (i: number) => {
    if (!parts) return -1;
    let best = 0;
    let bs = -Infinity;
    for (let c = 0; c < parts.k; c++) {
      const s = tableDot(parts.centroids, c, row(i), dims);
      if (s > bs) (bs = s), (best = c);
    }
    return best;
  };
  const ls = index.listSizes().sort((a, b2) => a - b2);
  sizes.push(`| ${v.label} | ${index.k} | ${ls.filter((s) => s === 0).length} | ${ls[0]} / ${pct(ls, 0.5)} / ${pct(ls, 0.99)} / ${ls[ls.length - 1]} | ${(ls.reduce((s, x) => s + x, 0) / N).toFixed(2)} | ${(buildMs / 1000).toFixed(1)} s |`);
  // the same index searched with each ranking of its lists: every centroid scored (0), or the coarse level first
  for (const margin of margins) {
    const label = `${v.label}, ${margin ? `lists ranked from the coarse groups, margin ${margin}` : "every centroid scored"}`;
    const count = { ids: 0, score: 0, want: 0, scanned: [] as number[], cpu: [] as number[], c: 0, p: 0, d: 0, cut: 0, lost: [] as number[], unf: { hit: 0, want: 0 }, fil: { hit: 0, want: 0 } };
    for (const q of qs) {
      if (q.top4.length < 4) continue;
      // tags are bits in the cache: ask it for the query's mask the way search does
      const p = prepareQuery(q.qv, dims, 0, q.tags);
      p.want = maskOf(q.tags);
      const best = new TopN(20 * v.rescore);
      const s0 = process.cpuUsage();
      const probed = { lists: new Set<number>(), rows: 0 };
      index.search(p, best, share, probed, margin);
      let items = best.items.map((it) => ({ i: indexOf(it.doc, it.row), s: 0 }));
      for (const it of items) it.s = dot(q.qv, row(it.i));
      items.sort((a, b2) => b2.s - a.s);
      items = items.slice(0, 4);
      count.cpu.push(cpuMs(s0));
      count.scanned.push(probed.rows);
      const got = new Set(items.map((x) => x.i));
      const idHits = q.top4.filter((t) => got.has(t.i)).length;
      const scoreHits = items.filter((x) => x.s >= q.kth - 1e-4).length;
      // what a miss costs: the exact cosine of the 4th hit returned below the exact 4th best
      if (items.length === 4) count.lost.push(Math.max(0, q.kth - items[3].s));
      count.ids += idHits;
      count.score += scoreHits;
      count.want += 4;
      const filtered = q.share < 0.999;
      const bucket = filtered ? count.fil : count.unf;
      bucket.hit += scoreHits;
      bucket.want += 4;
      // each true neighbour the answer lacks (by score): why
      const cand = new Set(best.items.map((it) => indexOf(it.doc, it.row)));
      for (const t of q.top4) {
        if (got.has(t.i) || items.some((x) => Math.abs(x.s - t.s) <= 1e-4)) continue;
        if (cand.has(t.i)) count.cut++;
        else if (listsOf[t.i].some((c) => probed.lists.has(c))) count.d++;
        else if (parts && !listsOf[t.i].includes(nearestList(t.i))) count.c++;
        else count.p++;
      }
    }
    const lost = count.lost.filter((x) => x > 1e-4);
    out.push(`| ${label} | ${(share * 100).toFixed(1)} % | ${lost.length ? `${lost.length}: ${pct(lost, 0.5).toFixed(4)} / ${Math.max(...lost).toFixed(4)}` : "0"} | ${(count.ids / count.want).toFixed(3)} | **${(count.score / count.want).toFixed(3)}** | ${(count.unf.want ? count.unf.hit / count.unf.want : NaN).toFixed(3)} / ${(count.fil.hit / count.fil.want).toFixed(3)} | ${Math.round(pct(count.scanned, 0.5)).toLocaleString("en")} (${((pct(count.scanned, 0.5) / N) * 100).toFixed(1)} %) | ${pct(count.cpu, 0.5).toFixed(2)} / ${pct(count.cpu, 0.99).toFixed(2)} ms |`);
    const missed = count.c + count.p + count.d + count.cut;
    causes.push(`| ${label} | ${missed} of ${count.want} | ${count.c} | ${count.p} | ${count.d} | ${count.cut} |`);
  }
}
// the exact scan beside them: the cache's own search (int8 scan of the visible rows, float32 re-score); over the
// --before cache when there is one, whose blocks still hold their codes (here the index moved them to its lists)
const exactCpu: number[] = [];
for (const q of qs) {
  const s0 = process.cpuUsage();
  (old?.cache ?? cache).search(q.qv, q.tags, 20);
  exactCpu.push(cpuMs(s0));
}
out.push(`| the exact scan (the cache's, int8 with float32 re-score) | – | 0 | 1.000 | **1.000** | 1.000 / 1.000 | ${N.toLocaleString("en")} (100 %) | ${pct(exactCpu, 0.5).toFixed(2)} / ${pct(exactCpu, 0.99).toFixed(2)} ms |`);
console.log("\n| index | lists probed ≥ | queries whose 4th hit scores below the exact 4th: n: cosine lost p50 / max | recall@4 by ids | recall@4 by score | unfiltered / filtered (by score) | rows scanned p50 | CPU a query p50 / p99 |\n|---|---|---|---|---|---|---|");
for (const l of out) console.log(l);
console.log("\n| index | true neighbours missed (by score) | (c) not listed under its nearest list | (p) its nearest list not probed | (d) scanned, cut by the int8 ranking before re-scoring | in the re-scored candidates, lost in the re-score |\n|---|---|---|---|---|---|");
for (const l of causes) console.log(l);
console.log("\n| index | lists | empty | rows a list min / p50 / p99 / max | entries a row | build |\n|---|---|---|---|---|---|");
for (const l of sizes) console.log(l);

function maskOf(tags: ReadonlySet<string>): number {
  let m = 0;
  tagOrder.forEach((t, i) => tags.has(t) && (m |= 1 << i));
  return m >>> 0;
}

/** CPU time of this process since `from` (user + system, ms): what a query costs whatever else the box runs. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}
