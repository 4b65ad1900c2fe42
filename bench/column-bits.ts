// The sparse queries' column copy at fewer bytes: the int8 column copy as it was (bench/support/column8.ts) beside
// the 4-bit one now in src/vectors/columnScan.ts, both re-scoring their top candidates from the float32 vectors,
// side by side query by query in one process, over one generated world
// (bench/support/bigWorld.ts, hashing embedder, the world's questions over random tag subsets, n = 20 as k = 4
// fetches), and the CPU of making each copy. Recall@4 is tie-aware against the float32 exact scan (bench/support/float32Cache.ts); CPU is the
// process's user + system time around each search.
// Usage: bun bench/column-bits.ts [--size 100000] [--queries 300] [--rescore 4,8]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { prepareQuery, rowId } from "../src/vectors/cacheBlocks.ts";
import { ColumnScan } from "../src/vectors/columnScan.ts";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { ProjectVectorCache } from "../src/vectors/ProjectVectorCache.ts";
import type { ChunkRow } from "../src/vectors/rows.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { Column8Scan } from "./support/column8.ts";
import { Float32VectorCache } from "./support/float32Cache.ts";

const { values: args } = parseArgs({ options: { size: { type: "string", default: "100000" }, queries: { type: "string", default: "300" }, rescore: { type: "string", default: "4,8" } } });
const size = Number(args.size);
const rescores = args.rescore!.split(",").map(Number);
const embedder = new HashingEmbedder();
const dims = embedder.dims;
const world = bigWorld({ chunks: size, queries: Number(args.queries) });
const byDoc = new Map<string, { rows: ChunkRow[]; vectors: Float32Array[] }>();
for (let i = 0; i < world.chunks.length; i += 1000) {
  const part = world.chunks.slice(i, i + 1000);
  const vecs = await embedder.embed(part.map((c) => c.text));
  part.forEach((c, j) => {
    const d = byDoc.get(c.documentId) ?? { rows: [], vectors: [] };
    d.rows.push({ ...c, projectId: "p", locationId: null });
    d.vectors.push(vecs[j]);
    byDoc.set(c.documentId, d);
  });
}
const cache = new ProjectVectorCache(dims, "p", { indexMinRows: 0 });
// the same rows, never given a column copy: they keep their int8 codes (the copy takes the cache's over), which
// the int8 column copy as it was and the copy timings read
const rowsOnly = new ProjectVectorCache(dims, "p", { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY });
const f32 = new Float32VectorCache(dims);
for (const [doc, d] of byDoc) {
  cache.setDocument(doc, d.rows, d.vectors);
  rowsOnly.setDocument(doc, d.rows, d.vectors);
  f32.setDocument(doc, d.rows, d.vectors);
}
const unitOf = new Map<string, Float32Array>();
for (const b of cache.blocks()) for (let r = 0; r < b.scales.length; r++) unitOf.set(rowId(b, r), b.full!.row(b.fullAt + r).slice());
const queries = await Promise.all(world.queries.map(async (q) => ({ v: (await embedder.embed([q.text]))[0], tags: new Set(q.tags) })));
// the column copy, as a big project's first sparse search asks for it
cache.search(queries[0].v, queries[0].tags, 20);
await cache.indexIdle();
if (cache.columnState !== "ready") throw new Error("no column copy");
const c8 = new Column8Scan(rowsOnly.blocks(), dims);
const bitOf = (t: string) => (cache as unknown as { bitOf(t: string, assign: boolean): number | null }).bitOf(t, false) ?? 0;
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];

type Variant = { label: string; run: (q: (typeof queries)[number]) => string[] };
const mutable = cache.opts as { rescore?: number };
const variants: Variant[] = [
  {
    label: "int8 columns (as it was), float32 re-score of 4×n",
    run: (q) => {
      let want = 0;
      for (const t of q.tags) want |= bitOf(t);
      return c8.search(prepareQuery(q.v, dims, want, q.tags), 20, 4).map((h) => rowId(h.doc, h.row));
    },
  },
  ...rescores.map((x) => ({
    label: `4-bit columns (now), float32 re-score of ${x}×n`,
    run: (q: (typeof queries)[number]) => {
      mutable.rescore = x;
      return cache.search(q.v, q.tags, 20).map((h) => h.id);
    },
  })),
];
const stats = variants.map(() => ({ cpu: [] as number[], r4: 0, want4: 0 }));
for (const pass of ["warm-up", "measured"] as const) {
  for (const q of pass === "warm-up" ? queries.slice(0, 20) : queries) {
    const qv = (() => {
      const n = Math.hypot(...q.v) || 1;
      return q.v.map((x) => x / n);
    })();
    const exact = f32.search(q.v, q.tags, 20);
    const kth = exact.length >= 4 ? dot(qv, unitOf.get(exact[3].id)!) - 1e-6 : -Infinity;
    variants.forEach((v, i) => {
      const c0 = cpu();
      const ids = v.run(q);
      const spent = cpu() - c0;
      if (pass === "warm-up") return;
      stats[i].cpu.push(spent / 1000);
      stats[i].r4 += ids.slice(0, 4).filter((id) => dot(qv, unitOf.get(id)!) >= kth).length;
      stats[i].want4 += Math.min(4, exact.length);
    });
  }
}
// making each copy whole (the cache makes its copy a slice at a time in the background), alternated, 3 times
const copyMs = { int8: [] as number[], four: [] as number[] };
for (let r = 0; r < 3; r++) {
  let c0 = cpu();
  new Column8Scan(rowsOnly.blocks(), dims);
  copyMs.int8.push((cpu() - c0) / 1000);
  c0 = cpu();
  ColumnScan.empty(size, dims).copy(rowsOnly.blocks(), { doc: 0, row: 0 }, size);
  copyMs.four.push((cpu() - c0) / 1000);
}
const internals = cache as unknown as { columns: { bytes: number } };
let meta = 0;
for (const b of cache.blocks()) meta += b.bytes - (b.codes?.byteLength ?? 0) - (b.full?.owned ? b.full.heapBytes : 0);
const per = (b: number) => `${(b / size).toFixed(0)} B`;
console.log(`\n${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}; ${size.toLocaleString("en")} chunks, ${queries.length} question queries\n`);
console.log("| sparse scan | recall@4 | CPU p50 / p90 per search | ÷ int8's p50 |\n|---|---|---|---|");
const base = pct(stats[0].cpu, 0.5);
variants.forEach((v, i) => console.log(`| ${v.label} | ${(stats[i].r4 / stats[i].want4).toFixed(3)} | ${pct(stats[i].cpu, 0.5).toFixed(2)} / ${pct(stats[i].cpu, 0.9).toFixed(2)} ms | ${(pct(stats[i].cpu, 0.5) / base).toFixed(2)} |`));
console.log(`\nbytes a chunk: int8 row codes (before the copy took them) ${per(rowsOnly.blocks().reduce((s, b) => s + (b.codes?.byteLength ?? 0), 0))}, the rest of a row ${per(meta)}, int8 column copy (as it was) ${per(c8.bytes)}, 4-bit column copy (now) ${per(internals.columns.bytes)}`);
console.log(`making the copy, CPU p50 of 3: int8 (as it was) ${pct(copyMs.int8, 0.5).toFixed(0)} ms, 4-bit (now) ${pct(copyMs.four, 0.5).toFixed(0)} ms`);
