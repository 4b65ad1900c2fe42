// Building the approximate index at big-world sizes: the two-level index now (src/vectors/IvfIndex.ts defaults:
// 16·√N small lists, a row under its nearest list among 3 coarse groups) beside the two-level index as it was (√N
// lists, a row under the nearest list of its nearest coarse group) and, with --flat yes, the flat k-means before
// both (√N/2 lists, every row against every centroid; bench/support/ivfFlat.ts), in one run over one generated
// world (bench/support/bigWorld.ts, hashing embedder). Reports per size the build time of each and, per probe share
// ("server": what the cache probes at that size), dense queries' wall p50 / p99, CPU p50 / p99, rows scanned and
// recall@4 (int8 candidates of 4 × 20 re-scored in float32, tie-aware against the float32 exact top 4, as
// bench/scale-retrieval.ts defines it), and the cells one search allocates (bun:jsc objectTypeCounts, which count the
// garbage not collected yet, over batches of 5 after a full collection). The searches of every index, ranking and
// share are interleaved query by query, so load on a shared box falls on all of them alike; CPU is the process's
// (the collector's threads included: a CPU p99 above the wall p99 is collection on other threads).
// Usage: bun bench/ivf-build.ts [--sizes 100000,1000000] [--queries 100] [--probes server,0.02,0.05] [--flat no]
//        [--margins 0,5: each two-level index searched with every centroid scored (0) and its lists ranked from the
//        coarse groups with that margin (ivfProbe.ts)] [--sample 8: the index now trained on 8 sample rows a list]
//        [--before /tmp/old-checkout: "as it was" is that checkout's index (its defaults), built over the same blocks:
//        the stand-in rows are sparse, so the index now leaves their codes in the blocks; the bench checks it; its
//        searches take that checkout's candidates (TopN) and query too] [--before-build no: no index built by the
//        checkout: the index now searched by the checkout's search code (the index's layout is the same), for rows whose
//        codes the index moved] [--exact no: without the exact int8 scans' rows]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { gcAndSweep, heapSize, heapStats } from "bun:jsc";
import * as ownBlocks from "../src/vectors/cacheBlocks.ts";
import { prepareQuery, rowTags, type DocumentBlock } from "../src/vectors/cacheBlocks.ts";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { IvfIndex } from "../src/vectors/IvfIndex.ts";
import { probeShareFor, ProjectVectorCache } from "../src/vectors/ProjectVectorCache.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { IvfFlat } from "./support/ivfFlat.ts";

const { values: args } = parseArgs({
  options: { sizes: { type: "string", default: "100000,1000000" }, queries: { type: "string", default: "100" }, probes: { type: "string", default: "server,0.02,0.05" }, flat: { type: "string", default: "no" }, margins: { type: "string", default: "0,5" }, sample: { type: "string", default: "" }, before: { type: "string", default: "" }, "before-build": { type: "string", default: "yes" }, exact: { type: "string", default: "yes" } },
});
type CacheBlocks = Pick<typeof ownBlocks, "prepareQuery" | "TopN">;
// the checkout's own candidates and query for its index (--before): a search there is that code's search, end to end
const beforeBlocks: CacheBlocks | null = args.before ? await import(`${args.before}/src/vectors/cacheBlocks.ts`) : null;
const cells = () => {
  let n = 0;
  for (const v of Object.values(heapStats().objectTypeCounts)) n += v;
  return n;
};
// what counting itself allocates (the stats object it reads), taken off each count
const countBase = (() => {
  const a = cells();
  return cells() - a;
})();
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const embedder = new HashingEmbedder();
const dims = embedder.dims;
const out: string[] = [];
for (const size of args.sizes!.split(",").map(Number)) {
  const world = bigWorld({ chunks: size, queries: Number(args.queries) });
  const cache = new ProjectVectorCache(dims, "p", { indexMinRows: 0 });
  const perDoc = new Map<string, { rows: typeof world.chunks; vectors: Float32Array[] }>();
  for (let i = 0; i < world.chunks.length; i += 1000) {
    const part = world.chunks.slice(i, i + 1000);
    const vecs = await embedder.embed(part.map((c) => c.text));
    part.forEach((c, j) => {
      const d = perDoc.get(c.documentId) ?? { rows: [], vectors: [] };
      d.rows.push(c);
      d.vectors.push(vecs[j]);
      perDoc.set(c.documentId, d);
    });
    if (perDoc.size >= 64 || i + 1000 >= world.chunks.length) {
      for (const [doc, d] of perDoc) cache.setDocument(doc, d.rows.map((r) => ({ ...r, projectId: "p", locationId: null })), d.vectors);
      perDoc.clear();
    }
  }
  const blocks: DocumentBlock[] = cache.blocks();
  const pause = () => Bun.sleep(0);
  const timed = async <T>(f: () => Promise<T>) => {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const v = await f();
    const c = process.cpuUsage(c0);
    return { v, ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
  };
  const builds: { label: string; ms: number; cpuMs?: number; index: { k: number; search: IvfIndex["search"] }; ranks?: boolean; before?: boolean }[] = [];
  const two = await timed(() => IvfIndex.build(blocks, dims, size, pause, undefined, args.sample ? { samplePerList: Number(args.sample) } : {}));
  builds.push({ label: `two-level now, ${two.v.k} lists${args.sample ? `, trained on ${args.sample} sample rows a list` : ""}`, ms: two.ms, cpuMs: two.cpuMs, index: two.v, ranks: true });
  const Before = args.before ? ((await import(`${args.before}/src/vectors/IvfIndex.ts`)).IvfIndex as typeof IvfIndex) : null;
  if (Before && args["before-build"] === "no") {
    // the index now searched by the checkout's search (its ranking of the lists, its candidates): the same index, so
    // only the search differs; the lists' scan is this code's in both (the checkout's search calls the index's own)
    const index = two.v;
    builds.push({ label: `the same index, searched by ${args.before}'s code`, ms: NaN, index: { k: index.k, search: (...a) => Before.prototype.search.apply(index, a) }, ranks: true, before: true });
  } else {
    if (Before && blocks.some((b) => b.codes === null)) throw new Error("the index now moved rows' codes out of the blocks: --before would scan them through the new code (--before-build no)");
    const was = Before ? await timed(() => Before.build(blocks, dims, size, pause)) : await timed(() => IvfIndex.build(blocks, dims, size, pause, Math.round(Math.sqrt(size)), { assignGroups: 1 }));
    builds.push({ label: Before ? `as it was (${args.before}), ${was.v.k} lists` : `two-level as it was, ${was.v.k} lists`, ms: was.ms, cpuMs: was.cpuMs, index: was.v, ranks: true, before: !!Before });
  }
  if (args.flat === "yes") {
    const flat = await timed(() => IvfFlat.build(blocks, dims, size, pause));
    builds.push({ label: `flat (as it was), ${flat.v.k} lists`, ms: flat.ms, index: flat.v });
  }
  // dense queries (a whole chunk's text), over random tag subsets; the float32 exact top 4 by brute force
  const all = new Set(world.tags);
  const qs = await Promise.all(world.queries.map(async (q, i) => ({ v: (await embedder.embed([world.chunks[(i * 7919) % size].text]))[0], tags: new Set(q.tags) })));
  const exactTop = qs.map((q) => {
    const p = prepareQuery(q.v, dims, 0, all);
    const scores: number[] = [];
    for (const b of blocks) {
      const full = b.full!.slice(b.fullAt, b.n);
      for (let r = 0; r < b.scales.length; r++) {
        if (!rowTags(b, r).some((t) => q.tags.has(t))) continue;
        let s = 0;
        for (let d = 0; d < dims; d++) s += p.q[d] * full[r * dims + d];
        scores.push(s);
      }
    }
    return scores.sort((a, b) => b - a)[3] - 1e-6;
  });
  // the exact int8 scan as the cache runs it below the index threshold (4 × n candidates re-scored), dense queries
  // and the world's questions (sparse: the hashing embedder's short queries, which always take the exact scan)
  const questions = await Promise.all(world.queries.map(async (q) => ({ v: (await embedder.embed([q.text]))[0], tags: new Set(q.tags) })));
  const exactOf = (list: typeof qs, label: string, tops: number[]) => {
    const ms: number[] = [];
    let hit = 0;
    list.forEach((q, i) => {
      const t0 = performance.now();
      const hits = cache.search(q.v, q.tags, 20);
      ms.push(performance.now() - t0);
      hit += hits.slice(0, 4).filter((h) => h.score >= tops[i]).length;
    });
    out.push(`| ${size.toLocaleString("en")} | exact int8 scan, ${label} | – | all | ${pct(ms, 0.5).toFixed(2)} / ${pct(ms, 0.99).toFixed(2)} ms | – | ${(hit / (4 * list.length)).toFixed(3)} | – |`);
  };
  if (args.exact === "yes") {
  exactOf(qs.slice(0, 10), "warm-up", exactTop.slice(0, 10));
  out.pop();
  exactOf(qs, "dense queries", exactTop);
  const questionTop = questions.map((q) => {
    const p = prepareQuery(q.v, dims, 0, all);
    const scores: number[] = [];
    for (const b of blocks) {
      for (let r = 0; r < b.scales.length; r++) {
        if (!rowTags(b, r).some((t) => q.tags.has(t))) continue;
        let s = 0;
        const v = b.full!.row(b.fullAt + r);
        // a question of many words is dense: its query keeps no list of non-zero dims (cacheBlocks.ts prepareQuery)
        if (p.sparse) for (let j = 0; j < p.nzIdx.length; j++) s += p.nzVal[j] * v[p.nzIdx[j]];
        else for (let d = 0; d < dims; d++) s += p.q[d] * v[d];
        scores.push(s);
      }
    }
    return scores.sort((a, b) => b - a)[3] - 1e-6;
  });
  exactOf(questions, "questions (sparse)", questionTop);
  }
  Bun.gc(true);
  const rss = process.memoryUsage().rss;
  const bitOf = (t: string) => (cache as unknown as { tagBit: Map<string, number> }).tagBit.get(t) ?? 0;
  // every index, ranking and share searched with each query in turn (which goes first rotates), so load on a shared
  // box falls on all alike; a `--before` index with its own checkout's candidates (TopN) and query
  const variants: { b: (typeof builds)[number]; margin: number; share: number; blocks: CacheBlocks; ms: number[]; cpu: number[]; gc: boolean[]; rows: number; hit: number }[] = [];
  for (const b of builds)
    for (const margin of b.ranks ? args.margins!.split(",").map(Number) : [0])
      for (const share of args.probes!.split(",").map((s) => (s === "server" ? probeShareFor(size) : Number(s))))
        variants.push({ b, margin, share, blocks: b.before ? beforeBlocks! : ownBlocks, ms: [], cpu: [], gc: [], rows: 0, hit: 0 });
  const searchOnce = (v: (typeof variants)[number], q: (typeof qs)[number], trace?: { lists: Set<number>; rows: number }) => {
    let want = 0;
    for (const t of q.tags) want |= bitOf(t);
    const p = v.blocks.prepareQuery(q.v, dims, want, q.tags);
    const best = new v.blocks.TopN(80);
    v.b.index.search(p, best, v.share, trace, v.margin);
    return best.items
      .map((it) => {
        let s = 0;
        const row = it.doc.full!.row(it.doc.fullAt + it.row);
        for (let d = 0; d < dims; d++) s += p.q[d] * row[d];
        return s;
      })
      .sort((x, y) => y - x)
      .slice(0, 4);
  };
  for (let i = 0; i < Math.min(10, qs.length); i++) for (const v of variants) searchOnce(v, qs[i]);
  const load0 = loadavg()[0];
  qs.forEach((q, i) => {
    for (let j = 0; j < variants.length; j++) {
      const v = variants[(i + j) % variants.length];
      const trace = { lists: new Set<number>(), rows: 0 };
      // a collection ran during the search when bun:jsc's heapSize changed (it changes only when one ends)
      const h0 = heapSize();
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const top = searchOnce(v, q, trace);
      v.ms.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      v.cpu.push((c.user + c.system) / 1000);
      v.gc.push(heapSize() !== h0);
      v.rows += trace.rows;
      v.hit += top.filter((s) => s >= exactTop[i]).length;
    }
  });
  out.push(`| ${size.toLocaleString("en")} | (load ${load0.toFixed(1)} at the start of the searches, ${loadavg()[0].toFixed(1)} at their end) | | | | | | |`);
  for (const v of variants) {
    // what one search allocates: cells (objectTypeCounts counts the garbage not collected yet), in batches of 5 after a full collection
    const cellsA: number[] = [];
    for (let i = 0; i + 5 <= Math.min(qs.length, 100); i += 5) {
      gcAndSweep();
      const c0 = cells();
      for (let j = i; j < i + 5; j++) searchOnce(v, qs[j]);
      cellsA.push((cells() - c0 - countBase) / 5);
    }
    const { b, margin, share, ms, cpu, gc, rows, hit } = v;
    const calm = cpu.filter((_, i) => !gc[i]);
    out.push(`| ${size.toLocaleString("en")} | ${b.label}${b.ranks ? (margin ? `, lists ranked from the coarse groups (margin ${margin})` : ", every centroid scored") : ""} | ${(b.ms / 1000).toFixed(1)} s (CPU ${((b.cpuMs ?? NaN) / 1000).toFixed(1)} s) | ${+(share * 100).toFixed(2)} % (${Math.round(rows / qs.length).toLocaleString("en")} rows) | ${pct(ms, 0.5).toFixed(2)} / ${pct(ms, 0.99).toFixed(2)} ms | ${pct(cpu, 0.5).toFixed(2)} / ${pct(cpu, 0.99).toFixed(2)} ms | ${(hit / (4 * qs.length)).toFixed(3)} | ${pct(cellsA, 0.5).toFixed(0)} | ${gc.filter(Boolean).length} of ${gc.length}; the others' CPU ${pct(calm, 0.5).toFixed(2)} / ${pct(calm, 0.99).toFixed(2)} ms |`);
  }
  out.push(`| ${size.toLocaleString("en")} | memory | | | cache ${(cache.bytes / size).toFixed(0)} B/chunk (its float32 vectors, own copies here, ${((cache.bytes - blocks.reduce((s, b) => s + (b.full?.heapBytes ?? 0), 0)) / size).toFixed(0)} B/chunk without them); index now ${(two.v.bytes / size).toFixed(1)} B/chunk, as it was ${builds[1].index instanceof IvfIndex ? (builds[1].index.bytes / size).toFixed(1) : "–"} | | bench RSS ${(rss / 2 ** 30).toFixed(2)} GB |`);
  console.error(out.join("\n"));
}
console.log(`\n### Building the index — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}. Hashing embedder (384 dims), dense queries, 20 tags, n = 20 (what k = 4 fetches), 4 × n int8 candidates re-scored in float32.\n`);
console.log("| chunks | index | build | lists probed (rows scanned a query) | search p50 / p99 | CPU p50 / p99 | recall@4 | cells a search | searches during a collection |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of out) console.log(r);
