// Would a dense project's rows do in 4 bits? Recall@4 against the float32 exact scan on real text (the generated
// world of bench/support/bigWorld.ts: the held-out world's lore recombined with variations, plus filler) embedded by
// the real all-MiniLM-L6-v2 fixture, for the candidates of an exact scan in int8 (the cache's codes) and in 4 bits
// (a prototype here: each row's int8 codes rounded to -7…7, as the column copy makes them), each re-scored in float32
// (4 × n or 8 × n candidates, n = 20 as k = 4 fetches), over the world's questions and phrases with random tag sets.
// Then the same through the cache itself, int8 rows and 4-bit rows (rowBits 4), each searched through its IVF index
// (trained from --index-min rows: √N lists, probing as the server does) and by its exact scan.
// The vectors are embedded once and kept in --cache (embedding is the slow part: a few chunks a second on a busy core).
// Usage: bun bench/dense-bits.ts [--chunks 2000] [--queries 300] [--cache /tmp/minilm-vectors.bin] [--threads 1]
//        [--index-min 1000] [--probe-shares 0.3,0.5]
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { quantise } from "../src/vectors/cacheBlocks.ts";
import { ProjectVectorCache } from "../src/vectors/ProjectVectorCache.ts";
import { TransformersEmbedder } from "../src/vectors/TransformersEmbedder.ts";
import { realFixtures } from "../test/realmodel/realFixtures.ts";
import { bigWorld } from "./support/bigWorld.ts";

const { values: args } = parseArgs({
  options: { chunks: { type: "string", default: "2000" }, queries: { type: "string", default: "300" }, cache: { type: "string", default: "/tmp/minilm-vectors.bin" }, threads: { type: "string", default: "1" }, "probe-shares": { type: "string", default: "" }, "index-min": { type: "string", default: "1000" } },
});
const fx = realFixtures();
if (!fx) throw new Error("the MiniLM fixture is missing (test/realmodel/fixtures.json)");
const N = Number(args.chunks);
const world = bigWorld({ chunks: N, queries: Number(args.queries) });
const dims = 384;
const texts = [...world.chunks.map((c) => c.text), ...world.queries.map((q) => q.text)];
let flat: Float32Array;
if (existsSync(args.cache!) && readFileSync(args.cache!).byteLength === texts.length * dims * 4) {
  const b = readFileSync(args.cache!);
  flat = new Float32Array(b.buffer, b.byteOffset, texts.length * dims).slice();
} else {
  const e = await TransformersEmbedder.load(join(fx.embeddingsDir, fx.minilm), { threads: Number(args.threads) });
  flat = new Float32Array(texts.length * dims);
  for (let i = 0; i < texts.length; i += 16) {
    const vs = await e.embed(texts.slice(i, i + 16));
    vs.forEach((v, j) => flat.set(v, (i + j) * dims));
    if (i % 320 === 0) console.error(`embedded ${i} of ${texts.length}`);
  }
  writeFileSync(args.cache!, new Uint8Array(flat.buffer));
}
const row = (i: number) => flat.subarray(i * dims, (i + 1) * dims);
const unit = Array.from({ length: N }, (_, i) => {
  const v = row(i).slice();
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
});
const codes8 = new Int8Array(N * dims);
const scale8 = new Float32Array(N);
for (let i = 0; i < N; i++) scale8[i] = quantise(row(i), dims, codes8, i * dims);
const NIBBLE = (c: number) => Math.round((c * 7) / 127);
const codes4 = Int8Array.from(codes8, NIBBLE);
const scale4 = Float32Array.from(scale8, (s) => (s * 127) / 7);
const dot = (a: ArrayLike<number>, b: ArrayLike<number>, off = 0) => {
  let s = 0;
  for (let d = 0; d < dims; d++) s += a[d] * b[off + d];
  return s;
};
const variants = [
  { label: "int8 rows (the cache now), float32 re-score of 4 × n", codes: codes8, scales: scale8, rescore: 4 },
  { label: "4-bit rows, float32 re-score of 4 × n", codes: codes4, scales: scale4, rescore: 4 },
  { label: "4-bit rows, float32 re-score of 8 × n", codes: codes4, scales: scale4, rescore: 8 },
  { label: "4-bit rows, no re-score", codes: codes4, scales: scale4, rescore: 1 },
];
const hit = variants.map(() => 0);
let want = 0;
const n = 20;
world.queries.forEach((q, qi) => {
  const qv = row(N + qi).slice();
  const qn = Math.hypot(...qv) || 1;
  for (let d = 0; d < dims; d++) qv[d] /= qn;
  const tags = new Set(q.tags);
  const visible = world.chunks.map((c, i) => (c.tags.some((t) => tags.has(t)) ? i : -1)).filter((i) => i >= 0);
  const exact = visible.map((i) => ({ i, s: dot(qv, unit[i]) })).sort((a, b) => b.s - a.s);
  if (exact.length < 4) return;
  const kth = exact[3].s - 1e-6;
  want += 4;
  variants.forEach((v, vi) => {
    const cand = visible
      .map((i) => ({ i, s: dot(qv, v.codes, i * dims) * v.scales[i] }))
      .sort((a, b) => b.s - a.s)
      .slice(0, n * v.rescore)
      .map((c) => ({ i: c.i, s: v.rescore > 1 ? dot(qv, unit[c.i]) : c.s }))
      .sort((a, b) => b.s - a.s);
    hit[vi] += cand.slice(0, 4).filter((c) => dot(qv, unit[c.i]) >= kth).length;
  });
});
console.log(`\n${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}; all-MiniLM-L6-v2 int8 ONNX; ${N.toLocaleString("en")} chunks, ${world.queries.length} queries\n`);
console.log("| dense rows | recall@4 against float32 |\n|---|---|");
variants.forEach((v, i) => console.log(`| ${v.label} | ${(hit[i] / want).toFixed(3)} |`));

// the cache itself: int8 and 4-bit rows, through the index and by the exact scan
const caches = [
  { label: "cache, int8 rows, exact scan", c: new ProjectVectorCache(dims, "p", { indexMinRows: 0 }) },
  { label: "cache, 4-bit rows, exact scan", c: new ProjectVectorCache(dims, "p", { indexMinRows: 0, rowBits: 4 }) },
  { label: "cache, int8 rows, IVF index", c: new ProjectVectorCache(dims, "p", { indexMinRows: Number(args["index-min"]) }) },
  { label: "cache, 4-bit rows, IVF index", c: new ProjectVectorCache(dims, "p", { indexMinRows: Number(args["index-min"]), rowBits: 4 }) },
  // --probe-shares 0.3,0.5: the int8 rows' index probing that share of its lists at least (the server: 20 %, fewer past 100k rows)
  ...(args["probe-shares"] ? args["probe-shares"].split(",").map(Number) : []).map((share) => ({
    label: `cache, int8 rows, IVF index, ≥ ${Math.round(share * 100)} % of the lists probed`,
    c: new ProjectVectorCache(dims, "p", { indexMinRows: Number(args["index-min"]), probeShare: share }),
  })),
];
const byDoc = new Map<string, number[]>();
world.chunks.forEach((c, i) => byDoc.set(c.documentId, [...(byDoc.get(c.documentId) ?? []), i]));
for (const { c } of caches) {
  for (const [doc, rows] of byDoc) c.setDocument(doc, rows.map((i) => ({ ...world.chunks[i], projectId: "p", locationId: null })), rows.map((i) => row(i)));
  await c.indexIdle();
}
const idOf = new Map(world.chunks.map((c, i) => [c.id, i]));
const cacheHit = caches.map(() => 0);
let cacheWant = 0;
world.queries.forEach((q, qi) => {
  const qv = row(N + qi).slice();
  const qn = Math.hypot(...qv) || 1;
  for (let d = 0; d < dims; d++) qv[d] /= qn;
  const tags = new Set(q.tags);
  const exact = world.chunks.map((c, i) => (c.tags.some((t) => tags.has(t)) ? dot(qv, unit[i]) : -Infinity)).sort((a, b) => b - a);
  if (!(exact[3] > -Infinity)) return;
  cacheWant += 4;
  caches.forEach(({ c }, ci) => {
    const hits = c.search(row(N + qi), tags, n).slice(0, 4);
    cacheHit[ci] += hits.filter((h) => dot(qv, unit[idOf.get(h.id)!]) >= exact[3] - 1e-6).length;
  });
});
console.log("\n| through the cache (4 × n re-scored) | mode | recall@4 against float32 |\n|---|---|---|");
caches.forEach(({ label, c }, i) => console.log(`| ${label} | ${c.mode} | ${(cacheHit[i] / cacheWant).toFixed(3)} |`));
