// Bytes per chunk of the project vector cache, the code as it was (imported from another checkout, --before) and
// now, side by side in one process over one generated world (bench/support/bigWorld.ts): each cache's own estimate
// part by part (what the vectorCacheMb budget counts) and its measured heap (heapUsed after full collections: in Bun
// it holds every typed array's bytes), both after its index is trained and, for a sparse project, its column copy built by a sparse
// search, with its float32 vectors handed to the snapshot file as the server does (dropped here, as they leave the
// heap there); the float32 cache as it was (bench/support/float32Cache.ts) measured in the same process for the
// ratio; then recall@4 against that float32 exact scan and CPU per search, before and now interleaved query by
// query, and a cold load of each one's snapshot file.
// --kind sparse: the hashing embedder; dense: the same vectors plus 0.03 on every dim, normalised (a stand-in for
// MiniLM's 384 dims: the bytes and the CPU do not depend on the values, recall does and is not read for it).
// --ids real: chunk ids as the server makes them (`chunk_` + 20 characters) instead of the world's short ones.
// --row-bits 4: "now" keeps a dense project's rows in 4-bit codes (CacheOptions.rowBits; the code as it was has no such option).
// Usage: bun bench/cache-bytes.ts --before /tmp/old-checkout [--size 100000] [--kind sparse|dense] [--queries 300] [--ids short|real] [--row-bits 8|4]
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { newId } from "../src/core/ids.ts";
import type { Embedder } from "../src/vectors/Embedder.ts";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import type { ChunkRow } from "../src/vectors/rows.ts";
import { DenseEmbedder } from "../test/vectors/helpers.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { Float32VectorCache } from "./support/float32Cache.ts";

const { values: args } = parseArgs({
  options: {
    before: { type: "string" },
    size: { type: "string", default: "100000" },
    kind: { type: "string", default: "sparse" },
    queries: { type: "string", default: "300" },
    ids: { type: "string", default: "short" },
    "row-bits": { type: "string", default: "8" },
  },
});
if (!args.before) throw new Error("--before <checkout of the code as it was> is required");
const size = Number(args.size);
const sparse = args.kind === "sparse";
const embedder: Embedder = sparse ? new HashingEmbedder() : new DenseEmbedder("bench-dense-384");
const dims = embedder.dims;

type Cache = {
  setDocument(id: string, rows: Omit<ChunkRow, "text">[], v: Float32Array[]): void;
  search(q: Float32Array, tags: ReadonlySet<string>, n: number): { id: string }[];
  indexIdle(): Promise<void>;
  blocks(): { codes: Int8Array | null; full: { owned: boolean; heapBytes: number } | null; bytes: number; scales: Float32Array }[];
  bytes: number;
  size: number;
  mode: string;
  columnState: string;
  extras(): unknown;
  stop(): void;
};
type Side = { label: string; root: string };
const sides: Side[] = [
  { label: "before", root: args.before },
  { label: "now", root: new URL("..", import.meta.url).pathname },
];
const mods = await Promise.all(
  sides.map(async (s) => ({
    cache: (await import(join(s.root, "src/vectors/ProjectVectorCache.ts"))).ProjectVectorCache as new (dims: number, p: string, o: object) => Cache,
    snap: await import(join(s.root, "src/vectors/cacheSnapshot.ts")),
  })),
);

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mem = async () => {
  for (let i = 0; i < 3; i++) {
    Bun.gc(true);
    await Bun.sleep(20);
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, both: m.heapUsed + m.arrayBuffers };
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];

const world = bigWorld({ chunks: size, queries: Number(args.queries) });
const realIds = args.ids === "real";
const byDoc = new Map<string, { rows: ChunkRow[]; vectors: Float32Array[] }>();
for (let i = 0; i < world.chunks.length; i += 1000) {
  const part = world.chunks.slice(i, i + 1000);
  const vecs = await embedder.embed(part.map((c) => c.text));
  part.forEach((c, j) => {
    const d = byDoc.get(c.documentId) ?? { rows: [], vectors: [] };
    d.rows.push({ ...c, id: realIds ? newId("chunk") : c.id, projectId: "p", locationId: null });
    d.vectors.push(vecs[j]);
    byDoc.set(c.documentId, d);
  });
}
const queries = await Promise.all(world.queries.map(async (q) => ({ v: (await embedder.embed([q.text]))[0], tags: new Set(q.tags) })));
// a dense project's queries are dense (a neural embedder's), a sparse one's sparse: each builds what the server would
const firstQuery = queries[0];

/** A cache as a load from LanceDB hands it its rows (own strings, own tag arrays), trained and copied. */
async function built(i: number) {
  const c = new mods[i].cache(dims, "p", { indexMinRows: 20_000, rowBits: Number(args["row-bits"]) });
  for (const [doc, d] of byDoc) c.setDocument(doc, d.rows.map((r) => ({ ...r, id: r.id.slice(0), documentName: (" " + r.documentName).slice(1), tags: r.tags.map((t) => (" " + t).slice(1)) })), d.vectors);
  await c.indexIdle();
  c.search(firstQuery.v, firstQuery.tags, 20);
  await c.indexIdle();
  return c;
}

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-bytes-"));
const paths: string[] = [];
const lines: string[] = [];
const caches: Cache[] = [];
const f0 = await mem();
const f32 = new Float32VectorCache(dims);
for (const [doc, d] of byDoc) f32.setDocument(doc, d.rows.map((r) => ({ ...r, id: r.id.slice(0), text: (" " + r.text).slice(1), tags: [...r.tags] })), d.vectors);
const f32Bytes = (await mem()).heap - f0.heap;
const per = (b: number) => `${(b / size).toFixed(0)} B`;
const ratio = (b: number) => (b / f32Bytes).toFixed(2);
lines.push(`| float32 cache as it was (the baseline), measured | ${per(f32Bytes)} | ${per(f32Bytes)} | 1 |`);
const est: Record<string, number>[] = [];
for (let i = 0; i < sides.length; i++) {
  const m0 = await mem();
  const c0 = cpu();
  const c = await built(i);
  const buildCpu = cpu() - c0;
  let codes = 0;
  let rest = 0;
  for (const b of c.blocks()) {
    codes += b.codes?.byteLength ?? 0;
    rest += b.bytes - (b.codes?.byteLength ?? 0) - (b.full?.owned ? b.full.heapBytes : 0);
  }
  const internals = c as unknown as { ivf: { bytes: number; rowBytes?: number } | null; columns: { bytes: number } };
  // the index now holds dense rows' codes in list order (ivfLists.ts): counted as row codes, not as the index
  const moved = internals.ivf?.rowBytes ?? 0;
  const e = { codes: codes + moved, rest, index: (internals.ivf?.bytes ?? 0) - moved, columns: internals.columns.bytes, buildCpu };
  // the float32 vectors leave the heap once the snapshot file holds them, as after the server's save
  const path = join(dir, `${sides[i].label}.vc`);
  const ex = c.extras() as { columns: boolean };
  const blocks = c.blocks();
  mods[i].snap.commitSnapshot(await mods[i].snap.writeSnapshotTmp(path, { gen: 1, embedderId: embedder.id, dims, projectId: "p" }, blocks, { index: null, columns: ex.columns }), path);
  (c as unknown as { adoptSnapshotRows(v: unknown): void }).adoptSnapshotRows(mods[i].snap.snapshotRows(path, blocks));
  paths.push(path);
  // measured after a few searches, as a server would be answering: right after the save, what its last steps left
  // on the stack (the file's parsed header, ~140 B a row) still counted as live
  for (const q of queries.slice(0, 50)) c.search(q.v, q.tags, 20);
  const m1 = await mem();
  (e as Record<string, number>).measured = m1.heap - m0.heap;
  (e as Record<string, number>).both = m1.both - m0.both;
  est.push(e);
  caches.push(c);
}
const row = (label: string, f: (e: Record<string, number>) => number, bold = false) => {
  const [b, n] = est.map(f);
  const s = (x: string) => (bold ? `**${x}**` : x);
  lines.push(`| ${label} | ${per(b)} | ${s(per(n))} | ${ratio(b)} → ${s(ratio(n))} |`);
};
row("int8 row codes (in the blocks, or in list order in the index with scale, tag bits and position: 396 B a row)", (e) => e.codes);
row("scales, ids, names, tags, tag bits", (e) => e.rest);
row("index lists and centroids", (e) => e.index);
row("column copy (4-bit)", (e) => e.columns);
row(`${args.kind} project, estimated (what vectorCacheMb counts)`, (e) => e.codes + e.rest + e.index + e.columns, true);
row(`${args.kind} project, measured (heap after GC)`, (e) => e.measured, true);
// what the earlier tables measured: a typed array whose buffer was asked for (a subarray, as the index's listing
// takes of every row) counts in both heapUsed and arrayBuffers, so this sum counts such codes twice
row(`(heap + array buffers, as measured before)`, (e) => e.both);

// recall@4 against the float32 exact scan (tie-aware) and CPU per search, interleaved query by query
const unit = new Map<string, Float32Array>();
for (const [, d] of byDoc)
  d.rows.forEach((r, j) => {
    const v = d.vectors[j];
    const n = Math.hypot(...v) || 1;
    unit.set(r.id, v.map((x) => x / n));
  });
const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const stats = caches.map(() => ({ cpu: [] as number[], hit: 0, want: 0 }));
for (const pass of ["warm-up", "measured"] as const) {
  for (const q of pass === "warm-up" ? queries.slice(0, 20) : queries) {
    const n = Math.hypot(...q.v) || 1;
    const qv = q.v.map((x) => x / n);
    const exact = f32.search(q.v, q.tags, 20);
    const kth = exact.length >= 4 ? dot(qv, unit.get(exact[3].id)!) - 1e-6 : -Infinity;
    caches.forEach((c, i) => {
      const t = cpu();
      const ids = c.search(q.v, q.tags, 20).map((h) => h.id);
      const spent = cpu() - t;
      if (pass === "warm-up") return;
      stats[i].cpu.push(spent);
      stats[i].hit += ids.slice(0, 4).filter((id) => dot(qv, unit.get(id)!) >= kth).length;
      stats[i].want += Math.min(4, exact.length);
    });
  }
}

// a cold load of each one's snapshot file (its own code wrote it), until it answers
const loads: string[] = [];
try {
  const ms: { wall: number[]; cpu: number[] }[] = caches.map(() => ({ wall: [], cpu: [] }));
  for (let r = 0; r < 3; r++)
    for (let i = 0; i < caches.length; i++) {
      const t = performance.now();
      const c0 = cpu();
      const c = new mods[i].cache(dims, "p", { indexMinRows: 20_000, rowBits: Number(args["row-bits"]) });
      mods[i].snap.restoreInto(c, mods[i].snap.readSnapshot(paths[i]));
      c.search(firstQuery.v, firstQuery.tags, 20);
      ms[i].wall.push(performance.now() - t);
      ms[i].cpu.push(cpu() - c0);
      c.stop();
    }
  caches.forEach((_, i) => loads.push(`${sides[i].label}: ${pct(ms[i].wall, 0.5).toFixed(0)} ms wall, ${pct(ms[i].cpu, 0.5).toFixed(0)} ms CPU (median of 3, read + restore + first search)`));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const [l1, l5] = loadavg();
console.log(`\n${availableParallelism()} cores (${cpus()[0]?.model}), load ${l1.toFixed(1)} / ${l5.toFixed(1)}; Bun ${Bun.version}; ${embedder.id}; ${size.toLocaleString("en")} chunks, ${realIds ? "server-made" : "short"} ids, ${queries.length} queries, now's row bits ${args["row-bits"]}\n`);
console.log("| memory per chunk | before | now | ÷ float32 (before → now) |\n|---|---|---|---|");
for (const l of lines) console.log(l);
console.log("\n| search | recall@4 | CPU p50 | CPU p99 | index + copy build CPU |\n|---|---|---|---|---|");
stats.forEach((s, i) => console.log(`| ${sides[i].label} (${caches[i].mode}, columns ${caches[i].columnState}) | ${(s.hit / s.want).toFixed(3)} | ${pct(s.cpu, 0.5).toFixed(2)} ms | ${pct(s.cpu, 0.99).toFixed(2)} ms | ${est[i].buildCpu.toFixed(0)} ms |`));
console.log(`| now ÷ before | | ${(pct(stats[1].cpu, 0.5) / pct(stats[0].cpu, 0.5)).toFixed(2)} | ${(pct(stats[1].cpu, 0.99) / pct(stats[0].cpu, 0.99)).toFixed(2)} | |`);
console.log(`\ncold load: ${loads.join("; ")}`);
for (const c of caches) c.stop();
