// A vector cache search's tail and what it allocates: two versions of the cache (this code and a checkout, `--before`)
// filled with the same rows in one process, searched with the same queries, the two arms interleaved query by query
// (which arm goes first alternates), so load on a shared box falls on both alike. Per arm: wall and CPU percentiles
// of one search (CPU: the process's, the collector's threads included), and the cells (objects, strings, arrays)
// one search allocates (bun:jsc heapStats' objectTypeCounts, which count garbage not collected yet, in batches after
// a full collection and sweep). Every query's hits (ids and scores) are compared between the arms.
//
// Rows: `--kind dense`: seeded clustered unit vectors (a neural embedder's kind: most dims non-zero, searched
// through the approximate index past 20,000 rows); `--kind sparse`: the hashing embedder's vectors of a generated
// world's chunks with its short questions (sparse queries: the column copy past 20,000 rows, as the in-process lore
// stage of bench/first-turn.ts runs). 20 tags, each row one or two; each query over a random subset of them.
// Usage: bun bench/query-tail.ts --before /tmp/old-checkout [--rows 100000] [--kind dense|sparse] [--queries 400]
//        [--n 20] [--batch 5]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { gcAndSweep, heapSize, heapStats } from "bun:jsc";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { ProjectVectorCache } from "../src/vectors/ProjectVectorCache.ts";
import { bigWorld } from "./support/bigWorld.ts";

const { values: args } = parseArgs({
  options: {
    before: { type: "string", default: "" },
    rows: { type: "string", default: "100000" },
    kind: { type: "string", default: "dense" },
    queries: { type: "string", default: "400" },
    n: { type: "string", default: "20" },
    batch: { type: "string", default: "5" },
  },
});
if (!args.before) throw new Error("--before <checkout> is required (the arm to compare with)");
const ROWS = Number(args.rows);
const N = Number(args.n);
const DIMS = 384;
type Cache = Pick<ProjectVectorCache, "setDocuments" | "search" | "indexIdle" | "mode" | "columnState">;
const Before = (await import(`${args.before}/src/vectors/ProjectVectorCache.ts`)).ProjectVectorCache as new (dims: number, projectId: string) => Cache;
const arms: { label: string; cache: Cache }[] = [
  { label: "this code", cache: new ProjectVectorCache(DIMS, "p") },
  { label: `before (${args.before})`, cache: new Before(DIMS, "p") },
];

let seed = 0x9e3779b9;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
const unit = (v: Float32Array) => {
  let s = 0;
  for (const x of v) s += x * x;
  const k = 1 / Math.sqrt(s || 1);
  for (let i = 0; i < v.length; i++) v[i] *= k;
  return v;
};
const TAGS = Array.from({ length: 20 }, (_, i) => `t${i}`);

const t0 = performance.now();
let queries: { v: Float32Array; tags: Set<string> }[];
if (args.kind === "dense") {
  // rows around 2,000 centres, each a mix of its own centre and a second one (a chunk mixes several sentences)
  const centres = Array.from({ length: 2000 }, () => unit(Float32Array.from({ length: DIMS }, gauss)));
  const rowOf = () => {
    const a = centres[Math.floor(rnd() * centres.length)];
    const b = centres[Math.floor(rnd() * centres.length)];
    return unit(Float32Array.from({ length: DIMS }, (_, d) => a[d] + 0.5 * b[d] + 0.6 * gauss() / Math.sqrt(DIMS / 8)));
  };
  for (let i = 0; i < ROWS; i += 500) {
    const docs = [];
    for (let d = i; d < Math.min(ROWS, i + 500); d += 10) {
      const n = Math.min(10, ROWS - d);
      const tags = [TAGS[Math.floor(rnd() * TAGS.length)]];
      if (rnd() < 0.3) tags.push(TAGS[Math.floor(rnd() * TAGS.length)]);
      const rows = Array.from({ length: n }, (_, r) => ({ id: `c${d + r}`, projectId: "p", documentId: `d${d}`, documentName: `Document ${d}`, chunkIndex: r, tags: [...new Set(tags)], locationId: null }));
      docs.push({ documentId: `d${d}`, rows, vectors: rows.map(rowOf) });
    }
    for (const a of arms) a.cache.setDocuments(docs);
  }
  queries = Array.from({ length: Number(args.queries) }, () => ({ v: rowOf(), tags: new Set(TAGS.filter(() => rnd() < 0.4)) }));
} else {
  const world = bigWorld({ chunks: ROWS, queries: Number(args.queries) });
  const embedder = new HashingEmbedder();
  for (let i = 0; i < world.chunks.length; i += 500) {
    const part = world.chunks.slice(i, i + 500);
    const byDoc = new Map<string, { documentId: string; rows: ReturnType<typeof rowOf>[]; vectors: Float32Array[] }>();
    const rowOf = (c: (typeof part)[number]) => {
      return { id: c.id, projectId: "p", documentId: c.documentId, documentName: c.documentName, chunkIndex: c.chunkIndex, tags: c.tags, locationId: null };
    }
    for (const c of part) {
      const d = byDoc.get(c.documentId) ?? { documentId: c.documentId, rows: [], vectors: [] };
      d.rows.push(rowOf(c));
      d.vectors.push(embedder.embedOne(c.text));
      byDoc.set(c.documentId, d);
    }
    for (const a of arms) a.cache.setDocuments([...byDoc.values()]);
  }
  queries = world.queries.map((q) => ({ v: embedder.embedOne(q.text), tags: new Set(q.tags) }));
}
// a sparse query asks for the column copy on its first search: one each, then wait for both copies and indexes
for (const a of arms) a.cache.search(queries[0].v, queries[0].tags, N);
for (const a of arms) await a.cache.indexIdle();
console.error(`filled and built in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${arms.map((a) => `${a.label}: ${a.cache.mode}, columns ${a.cache.columnState}`).join("; ")}`);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
// warm both (the JIT), then the timed queries, interleaved
for (let i = 0; i < 50; i++) for (const a of arms) a.cache.search(queries[i % queries.length].v, queries[i % queries.length].tags, N);
const wall = arms.map(() => [] as number[]);
const cpu = arms.map(() => [] as number[]);
/** per timed search: whether a collection ran during it (bun:jsc heapSize changes only when one ends) */
const collected = arms.map(() => [] as boolean[]);
let same = 0;
let differ = 0;
const load0 = loadavg()[0];
for (let i = 0; i < queries.length; i++) {
  const q = queries[i];
  const hits: { id: string; score: number }[][] = [[], []];
  for (let j = 0; j < arms.length; j++) {
    const a = (i + j) % arms.length;
    const h0 = heapSize();
    const c0 = cpuMs();
    const w0 = performance.now();
    hits[a] = arms[a].cache.search(q.v, q.tags, N);
    wall[a].push(performance.now() - w0);
    cpu[a].push(cpuMs() - c0);
    collected[a].push(heapSize() !== h0);
  }
  const key = (h: { id: string; score: number }[]) => h.map((x) => `${x.id}:${x.score}`).join(",");
  if (key(hits[0]) === key(hits[1])) same++;
  else differ++;
}
// what one search allocates: cells (objectTypeCounts counts the garbage not collected yet)
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
const B = Number(args.batch);
const alloc = arms.map((a) => {
  const objects: number[] = [];
  for (let i = 0; i + B <= Math.min(queries.length, 40 * B); i += B) {
    gcAndSweep();
    const c0 = cells();
    for (let j = i; j < i + B; j++) a.cache.search(queries[j].v, queries[j].tags, N);
    objects.push((cells() - c0 - countBase) / B);
  }
  return { objects: pct(objects, 0.5) };
});
console.log(`\n### A cache search's tail, ${ROWS.toLocaleString("en")} ${args.kind} rows — ${new Date().toISOString().slice(0, 16)} UTC\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${load0.toFixed(1)} at the start of the timed queries, ${loadavg()[0].toFixed(1)} at the end; Bun ${Bun.version}. ${queries.length} queries, n = ${N} (${N * 4} int8 candidates re-scored in float32), the arms interleaved. Hits identical (ids and scores) in ${same} of ${same + differ} queries.\n`);
console.log("| arm | mode | wall p50 / p90 / p99 | CPU p50 / p90 / p99 | CPU p99 ÷ p50 | cells a search (median of batches) | searches during a collection | CPU p50 / p99 of the others |");
console.log("|---|---|---|---|---|---|---|---|");
arms.forEach((a, i) => {
  const f = (xs: number[]) => `${pct(xs, 0.5).toFixed(2)} / ${pct(xs, 0.9).toFixed(2)} / ${pct(xs, 0.99).toFixed(2)} ms`;
  console.log(`| ${a.label} | ${a.cache.mode}${args.kind === "sparse" ? `, columns ${a.cache.columnState}` : ""} | ${f(wall[i])} | ${f(cpu[i])} | ${(pct(cpu[i], 0.99) / pct(cpu[i], 0.5)).toFixed(2)} | ${alloc[i].objects.toFixed(0)} | ${collected[i].filter(Boolean).length} of ${collected[i].length} | ${((xs) => `${pct(xs, 0.5).toFixed(2)} / ${pct(xs, 0.99).toFixed(2)} ms`)(cpu[i].filter((_, j) => !collected[i][j]))} |`);
});
