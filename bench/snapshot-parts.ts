// A big project's snapshot in parts (src/vectors/indexPart.ts) beside the single file it was before, in one run
// over one generated world (bench/support/bigWorld.ts, hashing embedder; --dense: the same vectors plus a constant
// on every dim, as a neural embedder's fill all 384). Per size:
//  - what an index retraining writes: the whole snapshot with its index (before) and the index part alone (now),
//    alternated, bytes and CPU per write;
//  - a cold load: the single file with its index (before) and the rows' file with its part (now), alternated;
//  - (with --memory) the cache's bytes per chunk, part by part, after the rows' float32 vectors were handed to the
//    mapped snapshot as the server does, the sparse queries' column copy built, and the float32 cache as it was
//    (bench/support/float32Cache.ts) measured in the same process for the ratio.
//  - (with --what tail) the save after a small change: 100 new documents (2,000 chunks), then 100 deleted, written
//    as the save before the rows' file had a tail wrote it (the whole rows' file and the index part) and as now (a
//    segment appended to the tail; the index part too once the rows added since it pass PART_LAG_ROWS), bytes and
//    CPU per save, alternated (and 10 new documents first); and a cold load of the same rows from the rows' file
//    with its tail and from one rows' file (the fold), alternated.
// Usage: bun bench/snapshot-parts.ts [--sizes 100000,1000000] [--runs 3] [--memory 100000] [--dense] [--what parts,tail]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Embedder } from "../src/vectors/Embedder.ts";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { ProjectVectorCache } from "../src/vectors/ProjectVectorCache.ts";
import type { ChunkRow } from "../src/vectors/rows.ts";
import { commitSnapshot, readSnapshot, restoreInto, writeSnapshotTmp } from "../src/vectors/cacheSnapshot.ts";
import { indexPartPath, readIndexPart, writeIndexPartTmp } from "../src/vectors/indexPart.ts";
import { encodeIndex } from "../src/vectors/ivfSnapshot.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { tailSaves } from "./support/tailSaves.ts";
import { DenseEmbedder } from "../test/vectors/helpers.ts";
import { Float32VectorCache } from "./support/float32Cache.ts";

const { values: args } = parseArgs({
  options: { sizes: { type: "string", default: "100000" }, runs: { type: "string", default: "3" }, memory: { type: "string", default: "" }, dense: { type: "boolean", default: false }, what: { type: "string", default: "parts" } },
});

// --dense: a stand-in for MiniLM (the bytes do not depend on the values)
const embedder: Embedder = args.dense ? new DenseEmbedder("bench-dense-384") : new HashingEmbedder();
const dims = embedder.dims;
const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-parts-"));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** heap + array buffers after full collections (two, a turn of the event loop apart: one alone left garbage counted) */
const mem = async () => {
  Bun.gc(true);
  await Bun.sleep(20);
  Bun.gc(true);
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const runs = Number(args.runs);
const memorySizes = new Set(args.memory ? args.memory.split(",").map(Number) : []);
const writes: string[] = [];
const loads: string[] = [];
const memory: string[] = [];
const what = new Set(args.what!.split(","));
const tails: string[] = [];
const tailLoads: string[] = [];

/** The world's rows, a document at a time, as a load from LanceDB hands them over (own strings, own tag arrays). */
async function documents(size: number) {
  const world = bigWorld({ chunks: size, queries: 20 });
  const byDoc = new Map<string, { rows: ChunkRow[]; vectors: Float32Array[] }>();
  for (let i = 0; i < world.chunks.length; i += 1000) {
    const part = world.chunks.slice(i, i + 1000);
    const vecs = await embedder.embed(part.map((c) => c.text));
    part.forEach((c, j) => {
      const d = byDoc.get(c.documentId) ?? { rows: [], vectors: [] };
      d.rows.push({ ...c, projectId: "p", text: c.text.slice(0), tags: [...c.tags], locationId: null });
      d.vectors.push(vecs[j]);
      byDoc.set(c.documentId, d);
    });
  }
  return { world, byDoc };
}

try {
  for (const size of args.sizes!.split(",").map(Number)) {
    const { world, byDoc } = await documents(size);
    if (what.has("tail")) {
      const newDocs = new Map<string, { rows: ChunkRow[]; vectors: Float32Array[] }>();
      const extra = bigWorld({ chunks: 2000, seed: 99 }).chunks;
      const vecs = await embedder.embed(extra.map((c) => c.text));
      extra.forEach((c, j) => {
        const d = newDocs.get(`n${c.documentId}`) ?? { rows: [], vectors: [] };
        d.rows.push({ ...c, id: `n${c.id}`, documentId: `n${c.documentId}`, projectId: "p", locationId: null });
        d.vectors.push(vecs[j]);
        newDocs.set(`n${c.documentId}`, d);
      });
      const out = await tailSaves({ dir, size, dims, embedderId: embedder.id, runs, byDoc, newDocs, cpu, median });
      tails.push(...out.saves);
      tailLoads.push(...out.loads);
    }
    if (!what.has("parts")) continue;
    if (memorySizes.has(size)) {
      // the server's heap: its index trained, the column copy built by a sparse search (a dense project's queries
      // never build it), and its float32 vectors views on the mapped rows' file, in the page cache, not the heap
      // (a mapping counts in both heapUsed and arrayBuffers here, so the bench drops its own copies instead)
      const before = await mem();
      const m = new ProjectVectorCache(dims, "p", { indexMinRows: 1 });
      for (const [doc, d] of byDoc) m.setDocument(doc, d.rows.map((r) => ({ ...r, id: r.id.slice(0), tags: [...r.tags] })), d.vectors);
      await m.indexIdle();
      const sparseQ = (await new HashingEmbedder().embed([world.queries[0].text]))[0];
      m.search(sparseQ, new Set(world.tags), 20);
      await m.indexIdle();
      let codes = 0;
      let scales = 0;
      let rest = 0;
      for (const b of m.blocks()) {
        codes += b.codes?.byteLength ?? 0;
        scales += b.scales.byteLength;
        rest += b.bytes - (b.codes?.byteLength ?? 0) - (b.full?.owned ? b.full.heapBytes : 0);
        b.full = null;
      }
      const total = (await mem()) - before;
      const internals = m as unknown as { ivf: { bytes: number }; columns: { bytes: number } };
      const columns = internals.columns.bytes;
      const ivf = internals.ivf.bytes;
      // the float32 cache as it was, the same rows, measured in this process
      const f0 = await mem();
      const f32 = new Float32VectorCache(dims);
      for (const [doc, d] of byDoc) f32.setDocument(doc, d.rows.map((r) => ({ ...r, id: r.id.slice(0), text: (" " + r.text).slice(1), tags: [...r.tags] })), d.vectors);
      const f32Bytes = (await mem()) - f0;
      const per = (b: number) => `${(b / size).toFixed(0)} B`;
      const ratio = (b: number) => (b / f32Bytes).toFixed(2);
      const rowsOnly = codes + rest;
      memory.push(
        `| ${size.toLocaleString("en")} | float32 cache as it was (the baseline), measured | ${per(f32Bytes)} | 1 |`,
        // the rest are the cache's own estimates (what the vectorCacheMb budget counts), part by part

        `| ${size.toLocaleString("en")} | int8 codes | ${per(codes)} | |`,
        `| ${size.toLocaleString("en")} | scales, ids, names, tags, tag bits | ${per(rest)} (scales ${per(scales)}) | |`,
        `| ${size.toLocaleString("en")} | rows | ${per(rowsOnly)} | ${ratio(rowsOnly)} |`,
        `| ${size.toLocaleString("en")} | index lists and centroids | ${per(ivf)} | |`,
        `| ${size.toLocaleString("en")} | column copy | ${per(columns)} | |`,
        `| ${size.toLocaleString("en")} | **rows + index (a dense project)** | ${per(rowsOnly + ivf)} | **${ratio(rowsOnly + ivf)}** |`,
        `| ${size.toLocaleString("en")} | **rows + index + column copy (a sparse project)** | ${per(rowsOnly + ivf + columns)} | **${ratio(rowsOnly + ivf + columns)}** |`,
        `| ${size.toLocaleString("en")} | the same, measured (heap + array buffers after GC) | ${per(total)} | ${ratio(total)} |`,
      );
      void f32.size;
      m.stop();
    }
    const cache = new ProjectVectorCache(dims, "p", { indexMinRows: 1 });
    for (const [doc, d] of byDoc) cache.setDocument(doc, d.rows.map((r) => ({ ...r, id: r.id.slice(0), tags: [...r.tags] })), d.vectors);
    let t0 = performance.now();
    await cache.indexIdle();
    const trainMs = performance.now() - t0;
    const meta = { gen: 1, embedderId: embedder.id, dims, projectId: "p" };
    const blocks = cache.blocks();
    const ex = cache.extras();
    const index = await encodeIndex(ex.index!.parts, ex.index!.trainedRows, blocks, async () => {});
    if (!index) throw new Error("index not encodable");
    const single = join(dir, `${size}-single.vc`);
    const rowsPath = join(dir, `${size}-rows.vc`);
    // the rows' file of "now" (written once, as after a load); its stamp ties the part to it
    const stamp = crypto.randomUUID();
    commitSnapshot(await writeSnapshotTmp(rowsPath, { ...meta, stamp }, blocks), rowsPath);

    // what a retraining writes, before and now, alternated
    const w = { before: [] as { ms: number; cpu: number }[], now: [] as { ms: number; cpu: number }[] };
    for (let r = 0; r < runs; r++) {
      let c0 = cpu();
      t0 = performance.now();
      commitSnapshot(await writeSnapshotTmp(single, meta, blocks, { index, columns: false }), single);
      w.before.push({ ms: performance.now() - t0, cpu: cpu() - c0 });
      c0 = cpu();
      t0 = performance.now();
      commitSnapshot(await writeIndexPartTmp(rowsPath, { stamp, rows: size, dims }, index, false), indexPartPath(rowsPath));
      w.now.push({ ms: performance.now() - t0, cpu: cpu() - c0 });
    }
    const singleBytes = statSync(single).size;
    const partBytes = statSync(indexPartPath(rowsPath)).size;
    const rowsBytes = statSync(rowsPath).size;
    const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
    writes.push(
      `| ${size.toLocaleString("en")} | whole snapshot with its index (before) | ${mb(singleBytes)} | ${median(w.before.map((x) => x.ms)).toFixed(0)} ms | ${median(w.before.map((x) => x.cpu)).toFixed(0)} ms |`,
      `| ${size.toLocaleString("en")} | index part alone (now) | ${mb(partBytes)} | ${median(w.now.map((x) => x.ms)).toFixed(1)} ms | ${median(w.now.map((x) => x.cpu)).toFixed(1)} ms |`,
      `| ${size.toLocaleString("en")} | **before ÷ now** | **${(singleBytes / partBytes).toFixed(0)}×** | ${(median(w.before.map((x) => x.ms)) / median(w.now.map((x) => x.ms))).toFixed(0)}× | ${(median(w.before.map((x) => x.cpu)) / median(w.now.map((x) => x.cpu))).toFixed(0)}× |`,
    );

    // a cold load, before and now, alternated: until the cache answers through its index
    const load = async (parts: boolean) => {
      const c0 = cpu();
      const s = performance.now();
      const c = new ProjectVectorCache(dims, "p", { indexMinRows: 1 });
      const path = parts ? rowsPath : single;
      const file = readSnapshot(path)!;
      restoreInto(c, file, parts ? readIndexPart(path, file.header).part : null);
      const out = { ms: performance.now() - s, cpu: cpu() - c0, mode: c.mode };
      c.stop();
      return out;
    };
    const l = { before: [] as Awaited<ReturnType<typeof load>>[], now: [] as Awaited<ReturnType<typeof load>>[] };
    for (let r = 0; r < runs; r++) {
      l.before.push(await load(false));
      l.now.push(await load(true));
      Bun.gc(true);
    }
    for (const [label, xs] of [["single file with its index (before)", l.before], ["rows' file + index part (now)", l.now]] as const) {
      if (xs.some((x) => x.mode !== "indexed")) throw new Error(`${label}: not indexed at load`);
      loads.push(`| ${size.toLocaleString("en")} | ${label} | ${median(xs.map((x) => x.ms)).toFixed(0)} ms | ${median(xs.map((x) => x.cpu)).toFixed(0)} ms |`);
    }
    loads.push(`| ${size.toLocaleString("en")} | files on disk | before ${mb(singleBytes)} | now ${mb(rowsBytes)} + ${mb(partBytes)} |`);

    cache.stop();
    rmSync(single, { force: true });
    Bun.gc(true);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const [l1, l5] = loadavg();
console.log(`\n${availableParallelism()} cores (${cpus()[0]?.model}), load ${l1.toFixed(1)} / ${l5.toFixed(1)}; Bun ${Bun.version}; ${embedder.id}; medians of ${runs} runs\n`);
if (writes.length) {
  console.log("| rows | what a retraining writes | bytes | wall | CPU |\n|---|---|---|---|---|");
  for (const l of writes) console.log(l);
  console.log("\n| rows | cold load until indexed | wall | CPU |\n|---|---|---|---|");
  for (const l of loads) console.log(l);
}
if (tails.length) {
  console.log("\n| rows | the save after | as before (rows' file + index part) | now (tail segment; + index part past 500 rows added) | bytes before ÷ now | CPU before ÷ now |\n|---|---|---|---|---|---|");
  for (const l of tails) console.log(l);
  console.log("\n| rows | rows after | cold load until indexed | wall | CPU |\n|---|---|---|---|---|");
  for (const l of tailLoads) console.log(l);
}
if (memory.length) {
  console.log("\n| rows | memory per chunk | bytes | ÷ float32 |\n|---|---|---|---|");
  for (const l of memory) console.log(l);
}
