// The vector half of runtime retrieval at big-world sizes: the float32 cache as it was (whole rows, float32
// vectors) side by side with the int8 cache, in one run, over one generated world (bench/support/bigWorld.ts).
// Reports per size: search p50 / p99, recall@4 and recall@20 of the int8 ranking against the float32 exact one,
// memory per chunk (heap + array buffers after GC, and the cache's own estimate), and build time from rows.
// With --rescore: the same caches re-scoring their top rescore × n candidates in float32, side by side.
// Usage: bun bench/scale-retrieval.ts [--sizes 10000,100000] [--queries 300] [--probes 0.05,0.1,0.2] [--rescore 2,4]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { ProjectVectorCache } from "../src/vectors/ProjectVectorCache.ts";
import type { ChunkRow } from "../src/vectors/rows.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { Float32VectorCache } from "./support/float32Cache.ts";

const { values: args } = parseArgs({
  options: { sizes: { type: "string", default: "10000,100000" }, queries: { type: "string", default: "300" }, probes: { type: "string", default: "0.05,0.1,0.2" }, rescore: { type: "string", default: "2,4" } },
});
const probes = args.probes!.split(",").map(Number);
const rescores = args.rescore!.split(",").map(Number);
const sizes = args.sizes!.split(",").map(Number);
const nQueries = Number(args.queries);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const mem = () => {
  Bun.gc(true);
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

function unit(v: Float32Array): Float32Array {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}
function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

const embedder = new HashingEmbedder();
const out: string[] = [];
for (const size of sizes) {
  const world = bigWorld({ chunks: size, queries: nQueries });
  const byDoc = new Map<string, { rows: ChunkRow[]; vectors: Float32Array[] }>();
  for (let i = 0; i < world.chunks.length; i += 512) {
    const part = world.chunks.slice(i, i + 512);
    const vecs = await embedder.embed(part.map((c) => c.text));
    part.forEach((c, j) => {
      const d = byDoc.get(c.documentId) ?? { rows: [], vectors: [] };
      // a row as LanceDB hands it over: its own strings, its own tags array
      d.rows.push({ ...c, projectId: "p", text: c.text.slice(0), tags: [...c.tags], locationId: null });
      d.vectors.push(vecs[j]);
      byDoc.set(c.documentId, d);
    });
  }
  const vectorOf = new Map<string, Float32Array>();
  for (const d of byDoc.values()) d.rows.forEach((r, i) => vectorOf.set(r.id, unit(d.vectors[i])));
  const build = <C extends { setDocument(id: string, rows: ChunkRow[], v: Float32Array[]): void }>(make: () => C) => {
    const before = mem();
    const t0 = performance.now();
    const cache = make();
    // the rows are copied as a load from LanceDB would create them: what the cache keeps is what it costs
    for (const [doc, d] of byDoc) cache.setDocument(doc, d.rows.map((r) => ({ ...r, id: r.id.slice(0), text: (" " + r.text).slice(1), tags: [...r.tags] })), d.vectors);
    const ms = performance.now() - t0;
    return { cache, ms, bytes: mem() - before };
  };
  const f32 = build(() => new Float32VectorCache(embedder.dims));
  const i8 = build(() => new ProjectVectorCache(embedder.dims, "p", { indexMinRows: 0, rescore: 0 }));
  // with float32 vectors for re-scoring (own copies here; in the store they are views on the mapped snapshot file)
  const rs = build(() => new ProjectVectorCache(embedder.dims, "p", { indexMinRows: 0 }));
  const ix = build(() => new ProjectVectorCache(embedder.dims, "p", { indexMinRows: 1 }));
  const t0 = performance.now();
  await ix.cache.indexIdle();
  const indexMs = performance.now() - t0 + ix.ms;
  const queries = await Promise.all(world.queries.map(async (q) => ({ v: (await embedder.embed([q.text]))[0], tags: new Set(q.tags) })));
  // dense queries: a whole chunk's text (~60 words) fills most of the 384 dims, as a neural embedder's query does
  const dense = await Promise.all(world.queries.map(async (q, i) => ({ v: (await embedder.embed([world.chunks[(i * 7919) % size].text]))[0], tags: new Set(q.tags) })));
  const run = (qs: typeof queries, cache = i8.cache) => {
    const t = { f32: [] as number[], i8: [] as number[] };
    let r4 = 0;
    let r20 = 0;
    let want4 = 0;
    let want20 = 0;
    for (const q of qs) {
      let s = performance.now();
      const exact = f32.cache.search(q.v, q.tags, 20);
      t.f32.push(performance.now() - s);
      s = performance.now();
      const approx = cache.search(q.v, q.tags, 20);
      t.i8.push(performance.now() - s);
      // tie-aware: the world repeats sentences, so several chunks can score exactly alike; a hit counts when its
      // exact cosine reaches the exact ranking's k-th (which of two equal chunks comes first is arbitrary)
      const qv = unit(q.v);
      const exactScore = (id: string) => dot(qv, vectorOf.get(id)!);
      const kth = (k: number) => (exact.length >= k ? exactScore(exact[k - 1].id) : -Infinity) - 1e-6;
      r20 += approx.filter((h) => exactScore(h.id) >= kth(20)).length;
      r4 += approx.slice(0, 4).filter((h) => exactScore(h.id) >= kth(4)).length;
      want20 += exact.length;
      want4 += Math.min(4, exact.length);
    }
    return { t, r4: r4 / want4, r20: r20 / want20 };
  };
  run(queries.slice(0, 20)); // JIT warm-up
  run(queries.slice(0, 20), rs.cache);
  const line = (label: string, what: string, r: ReturnType<typeof run>) =>
    out.push(
      `| ${size.toLocaleString("en")} | ${label} | ${what} | ${pct(r.t.f32, 0.5).toFixed(2)} / ${pct(r.t.f32, 0.99).toFixed(2)} ms | ${pct(r.t.i8, 0.5).toFixed(2)} / ${pct(r.t.i8, 0.99).toFixed(2)} ms | ${r.r4.toFixed(3)} | ${r.r20.toFixed(3)} |`,
    );
  const mutable = (c: ProjectVectorCache) => c.opts as { rescore?: number; probeShare?: number };
  for (const [label, qs] of [["question", queries], ["dense", dense]] as const) {
    line(label, "int8 exact", run(qs));
    for (const x of rescores) {
      mutable(rs.cache).rescore = x;
      line(label, `int8 exact, float32 re-score of ${x}×n`, run(qs, rs.cache));
    }
    for (const share of probes) {
      mutable(ix.cache).probeShare = share;
      for (const x of [0, ...rescores]) {
        mutable(ix.cache).rescore = x;
        line(label, `int8 index, ${share * 100}% of lists${x ? `, float32 re-score of ${x}×n` : ""}`, run(qs, ix.cache));
      }
    }
  }
  out.push(
    `| ${size.toLocaleString("en")} | memory | | ${(f32.bytes / size).toFixed(0)} B/chunk, built in ${f32.ms.toFixed(0)} ms | ${(i8.bytes / size).toFixed(0)} B/chunk (estimate ${(i8.cache.bytes / size).toFixed(0)}), built in ${i8.ms.toFixed(0)} ms; with the index ${(ix.cache.bytes / size).toFixed(0)} B/chunk (estimate), rows + index built in ${indexMs.toFixed(0)} ms | ratio ${(i8.bytes / f32.bytes).toFixed(2)} | |`,
  );
}
console.log(`\n### Vector half at scale — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}. Hashing embedder (384 dims), 20 tags, ${nQueries} queries over random tag subsets, n = 20 candidates (what k = 4 fetches).\n`);
console.log("| chunks | queries | int8 search | float32 exact p50 / p99 | int8 p50 / p99 | recall@4 | recall@20 |");
console.log("|---|---|---|---|---|---|---|");
for (const r of out) console.log(r);
