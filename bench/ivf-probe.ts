// How many lists a 100k search must probe, and what a query costs, on the real MiniLM vectors bench/dense-bits.ts
// cached: one index (built, or read back from --index, a file this bench writes on its first run so later runs skip
// the minutes of training), searched the server's way (10 % of the lists), with fixed shares, and probing by the
// query's centroid score margin (lists down to the best list's score − δ, at least --min and at most 10 % of them);
// with --before, the index of that checkout over its own cache, searched in the same process. recall@4 by score
// against the float32 exact top 4 over the visible rows (a hit counts when it reaches the exact 4th − 1e-4), rows
// scanned and CPU a query (`process.cpuUsage`), each query asked once to warm and once measured.
// Usage: bun bench/ivf-probe.ts [--cache /tmp/minilm-100k.bin] [--index /tmp/ivf-100k.bin] [--ask 150]
//        [--shares 0.05,0.07] [--deltas 0.08,0.12,0.15] [--min 0.02] [--before /tmp/old-checkout]
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { prepareQuery, TopN, type DocumentBlock, type PreparedQuery } from "../src/vectors/cacheBlocks.ts";
import { IvfIndex } from "../src/vectors/IvfIndex.ts";
import { tableQueryDot } from "../src/vectors/ivfMath.ts";
import { probeOrder } from "../src/vectors/ivfProbe.ts";
import { decodeIndex, encodeIndex, type IndexMeta } from "../src/vectors/ivfSnapshot.ts";
import { ProjectVectorCache, probeShareFor } from "../src/vectors/ProjectVectorCache.ts";
import { bigWorld } from "./support/bigWorld.ts";

const { values: args } = parseArgs({
  options: {
    cache: { type: "string", default: "/tmp/minilm-100k.bin" },
    index: { type: "string", default: "/tmp/ivf-100k.bin" },
    ask: { type: "string", default: "150" },
    shares: { type: "string", default: "0.05,0.07" },
    deltas: { type: "string", default: "0.08,0.12,0.15" },
    min: { type: "string", default: "0.02" },
    before: { type: "string", default: "" },
  },
});
const N = 100_000;
const dims = 384;
const world = bigWorld({ chunks: N, queries: 300 });
const b = readFileSync(args.cache!);
if (b.byteLength !== (N + 300) * dims * 4) throw new Error(`${args.cache} does not hold this world's vectors: run bench/dense-bits.ts --chunks ${N} --cache ${args.cache} first`);
const flat = new Float32Array(b.buffer, b.byteOffset, (N + 300) * dims).slice();
for (let i = 0; i < N + 300; i++) {
  const v = flat.subarray(i * dims, (i + 1) * dims);
  const n = Math.hypot(...v) || 1;
  for (let d = 0; d < dims; d++) v[d] /= n;
}
const row = (i: number) => flat.subarray(i * dims, (i + 1) * dims);
const dot = (a: ArrayLike<number>, c: ArrayLike<number>) => {
  let s = 0;
  for (let d = 0; d < dims; d++) s += a[d] * c[d];
  return s;
};
const byDoc = new Map<string, number[]>();
world.chunks.forEach((c, i) => byDoc.set(c.documentId, [...(byDoc.get(c.documentId) ?? []), i]));
const fill = (cache: ProjectVectorCache) => {
  for (const [doc, rows] of byDoc) cache.setDocument(doc, rows.map((i) => ({ ...world.chunks[i], projectId: "p", locationId: null })), rows.map((i) => row(i)));
  return cache;
};
const cache = fill(new ProjectVectorCache(dims, "p", { indexMinRows: 0 }));
const blocks: DocumentBlock[] = cache.blocks();

// the index: read back from the file a first run wrote, or trained (and written for the next run)
let index: IvfIndex;
const c0 = process.cpuUsage();
if (existsSync(args.index!)) {
  const f = readFileSync(args.index!);
  const len = f.readUInt32LE(0);
  const meta = JSON.parse(f.toString("utf8", 4, 4 + len)) as IndexMeta;
  const bytes = new Uint8Array(f.length - 4096);
  bytes.set(f.subarray(4096));
  const parts = decodeIndex(meta, bytes, blocks, dims);
  if (!parts) throw new Error(`${args.index} is not an index of this world in this layout: delete it`);
  index = IvfIndex.fromParts(dims, parts);
} else {
  index = await IvfIndex.build(blocks, dims, N, () => Promise.resolve());
  const enc = (await encodeIndex(index.parts(), N, blocks, () => Promise.resolve()))!;
  const head = Buffer.alloc(4096);
  const j = Buffer.from(JSON.stringify(enc.meta));
  head.writeUInt32LE(j.length, 0);
  j.copy(head, 4);
  writeFileSync(args.index!, Buffer.concat([head, ...enc.sections.map((s) => new Uint8Array(s.buffer, s.byteOffset, s.byteLength))]));
}
const cu = process.cpuUsage(c0);
console.error(`index ready: ${((cu.user + cu.system) / 1e6).toFixed(1)} s CPU, ${(index.bytes / N).toFixed(1)} B a chunk (${((index.bytes - index.rowBytes) / N).toFixed(1)} without the rows' codes)`);
type Searchable = { k: number; search(p: PreparedQuery, best: TopN, share: number, trace?: { lists: Set<number>; rows: number }): void };
const old = args.before ? ((await import(`${args.before}/src/vectors/IvfIndex.ts`)).IvfIndex as { build(b: DocumentBlock[], d: number, n: number, pause: () => Promise<void>): Promise<Searchable> }) : null;
const oldIndex = old ? await old.build(fill(new ProjectVectorCache(dims, "p", { indexMinRows: 0 })).blocks(), dims, N, () => Promise.resolve()) : null;

const tagOrder: string[] = [];
for (const c of world.chunks) for (const t of c.tags) if (!tagOrder.includes(t)) tagOrder.push(t);
const maskOf = (tags: Set<string>) => {
  let m = 0;
  tagOrder.forEach((t, i) => tags.has(t) && (m |= 1 << i));
  return m >>> 0;
};
const asked = world.queries.slice(0, Number(args.ask));
const qs = [...asked.map((q, qi) => ({ q, qi, all: false })), ...asked.map((q, qi) => ({ q, qi, all: true }))].map(({ q, qi, all }) => {
  const tags = new Set(all ? world.tags : q.tags);
  const qv = row(N + qi);
  const sc: number[] = [];
  world.chunks.forEach((c, i) => c.tags.some((t) => tags.has(t)) && sc.push(dot(qv, row(i))));
  sc.sort((x, y) => y - x);
  return { tags, qv, kth: sc[3] };
});
const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const out: string[] = [];
function run(label: string, search: (p: PreparedQuery, best: TopN, trace: { lists: Set<number>; rows: number }) => void) {
  let hit = 0;
  let want = 0;
  const cpu: number[] = [];
  const rows: number[] = [];
  for (let rep = 0; rep < 2; rep++)
    for (const q of qs) {
      const s0 = process.cpuUsage();
      const p = prepareQuery(q.qv, dims, maskOf(q.tags), q.tags);
      const best = new TopN(80);
      const trace = { lists: new Set<number>(), rows: 0 };
      search(p, best, trace);
      const top = best.items.map((it) => dot(q.qv, it.doc.full!.row(it.doc.fullAt + it.row))).sort((x, y) => y - x).slice(0, 4);
      const c = process.cpuUsage(s0);
      if (rep === 0) continue;
      cpu.push((c.user + c.system) / 1000);
      rows.push(trace.rows);
      hit += top.filter((s) => s >= q.kth - 1e-4).length;
      want += 4;
    }
  out.push(`| ${label} | ${(hit / want).toFixed(3)} | ${pct(rows, 0.5).toLocaleString("en")} | ${pct(cpu, 0.5).toFixed(2)} / ${pct(cpu, 0.99).toFixed(2)} ms |`);
}
const server = probeShareFor(N);
// interleaved: main's index and this one, twice, so load drifting through the run falls on both
for (let round = 0; round < 2; round++) {
  if (oldIndex) run(`main's index (${args.before}), ${server * 100} % of the lists, round ${round + 1}`, (p, best, trace) => oldIndex.search(p, best, server, trace));
  run(`now, ${server * 100} % of the lists (the server's), round ${round + 1}`, (p, best, trace) => index.search(p, best, server, trace));
}
for (const share of args.shares!.split(",").filter(Boolean).map(Number)) run(`now, ${share * 100} % of the lists`, (p, best, trace) => index.search(p, best, share, trace));
const lists = (index as unknown as { lists: { scan(c: number, p: PreparedQuery, best: TopN): number; prepare(p: PreparedQuery): void } }).lists;
for (const delta of args.deltas!.split(",").filter(Boolean).map(Number)) {
  run(`now, lists down to the best one's score − ${delta} (${Number(args.min) * 100}–${server * 100} %)`, (p, best, trace) => {
    const lo = Math.ceil(index.k * Number(args.min));
    const hi = Math.ceil(index.k * server);
    let i = 0;
    let top = -Infinity;
    lists.prepare(p);
    for (const l of probeOrder(index, p, hi)) {
      const s = tableQueryDot(index.centroids, l, p, dims);
      if (i === 0) top = s;
      if (i >= lo && best.full && (i >= hi || s < top - delta)) break;
      i++;
      trace.rows += lists.scan(l, p, best);
    }
  });
}
console.log(`\n${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}; all-MiniLM-L6-v2 vectors of 100,000 chunks, ${qs.length} queries (each filtered and unfiltered), n = 20, 4 × n re-scored in float32\n`);
console.log("| search | recall@4 by score | rows scanned p50 | CPU a query p50 / p99 |\n|---|---|---|---|");
for (const l of out) console.log(l);
