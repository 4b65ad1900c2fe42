// Cold load of a big project's vector cache from LanceDB: the loader as it was (every column, text included,
// into float32 vectors and whole rows) side by side with today's (no text, int8 codes), in one run, after writing
// the generated world (bench/support/bigWorld.ts) through VectorStore.replaceDocumentChunks — whose throughput
// is reported for the first and the last tenth of the documents (flat means the project's size costs nothing).
// Usage: bun bench/scale-load.ts [--sizes 10000,100000] [--per-document 100]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { dropSnapshot, snapshotPath } from "../src/vectors/cacheSnapshot.ts";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import * as lancedb from "@lancedb/lancedb";
import { loreFilter, projectFilter } from "../src/vectors/filters.ts";
import { CHUNK_COLUMNS } from "../src/vectors/schemas.ts";
import { toChunkRow, type Raw } from "../src/vectors/vectorRecords.ts";
import { VectorStore } from "../src/vectors/VectorStore.ts";
import type { ChunkRow } from "../src/vectors/rows.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { Float32VectorCache } from "./support/float32Cache.ts";

const { values: args } = parseArgs({ options: { sizes: { type: "string", default: "10000,100000" }, "per-document": { type: "string", default: "100" }, "lance-index": { type: "string", default: "yes" } } });
const sizes = args.sizes!.split(",").map(Number);
const perDoc = Number(args["per-document"]);
const mem = () => {
  Bun.gc(true);
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

const out: string[] = [];
const lance: string[] = [];
const snapOut: string[] = [];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
let s0 = 0;
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-scale-"));
  const emb = new HashingEmbedder();
  let store = await VectorStore.open(dir, emb, { vectorCacheMb: 0 });
  const world = bigWorld({ chunks: size, chunksPerDocument: perDoc, queries: 1 });
  const docs = new Map<string, ChunkRow[]>();
  for (const c of world.chunks) {
    const rows = docs.get(c.documentId) ?? [];
    rows.push({ ...c, projectId: "p", locationId: null });
    docs.set(c.documentId, rows);
  }
  const list = [...docs];
  const tenth = Math.max(1, Math.floor(list.length / 10));
  const write = async (from: number, to: number) => {
    const t0 = performance.now();
    let n = 0;
    for (const [doc, rows] of list.slice(from, to)) {
      await store.replaceDocumentChunks("p", doc, rows);
      n += rows.length;
    }
    return n / ((performance.now() - t0) / 1000);
  };
  // the first tenth and the last are timed; the middle is written untimed, so the last lands on a full-size project
  const rate = [await write(0, tenth)];
  await write(tenth, list.length - tenth);
  rate.push(await write(list.length - tenth, list.length));
  await store.optimizeNow();
  await store.close();
  // cold: a fresh store on the same files, each loader once
  store = await VectorStore.open(dir, emb, { vectorCacheMb: 0 });
  const g = store.activeGeneration();
  const loadNew = async () => {
    // from LanceDB: no snapshot file (a load from LanceDB writes one in the background; wait for it, then drop it)
    await store.snapshotsIdle();
    g.vectorCache.clear();
    dropSnapshot(snapshotPath(dir, g.gen, "p"));
    const before = mem();
    const s = performance.now();
    const rows = await store.warm(["p"]);
    return { rows, ms: performance.now() - s, bytes: mem() - before };
  };
  const loadOld = async () => {
    const before = mem();
    const s = performance.now();
    const old = new Float32VectorCache(g.dims);
    const byDoc = new Map<string, { rows: ChunkRow[]; vectors: Float32Array[] }>();
    for await (const batch of g.chunks.query().where(projectFilter("p")).select([...CHUNK_COLUMNS, "vector"])) {
      for (const raw of batch.toArray() as Raw[]) {
        const row = toChunkRow(raw);
        const d = byDoc.get(row.documentId) ?? { rows: [], vectors: [] };
        d.rows.push(row);
        d.vectors.push(Float32Array.from(raw.vector.toArray ? raw.vector.toArray() : raw.vector));
        byDoc.set(row.documentId, d);
      }
    }
    for (const [doc, d] of byDoc) old.setDocument(doc, d.rows, d.vectors);
    byDoc.clear();
    const ms = performance.now() - s;
    const bytes = mem() - before;
    return { rows: old.size, ms, bytes, old };
  };
  // each loader twice, alternating, the second of each reported: the first read of the files warms the OS cache
  await loadNew();
  (await loadOld()).old.size;
  g.vectorCache.clear();
  const oldRun = await loadOld();
  const oldMs = oldRun.ms;
  oldRun.old = new Float32VectorCache(1);
  const newRun = await loadNew();
  const { rows, ms: newMs } = newRun;
  const old = { size: oldRun.rows };
  await store.snapshotsIdle(); // its own float32 copies give way to views on the file once it is written
  const est = store.cacheUsage().bytes;
  // the snapshot file: written by the load above, read back by a fresh store (each twice, the second reported)
  const snap: number[] = [];
  let firstSearch = 0;
  for (let i = 0; i < 2; i++) {
    await store.close();
    store = await VectorStore.open(dir, emb, { vectorCacheMb: 0 });
    const s = performance.now();
    await store.warm(["p"]);
    snap.push(performance.now() - s);
    if (store.cacheUsage().loadsFrom.snapshot !== 1) throw new Error("the snapshot was not used");
    const s2 = performance.now();
    await store.searchVectorHits({ projectId: "p", query: "the harbour keeper's lantern", tags: ["t0", "t1", "t2"], n: 20 });
    firstSearch = performance.now() - s2;
  }
  const fileMb = statSync(snapshotPath(dir, store.activeGeneration().gen, "p")).size / 1e6;
  snapOut.push(`| ${rows.toLocaleString("en")} | ${newMs.toFixed(0)} ms | ${snap[1].toFixed(0)} ms | ${(snap[1] / newMs).toFixed(3)} | ${firstSearch.toFixed(1)} ms | ${fileMb.toFixed(0)} MB |`);
  out.push(
    `| ${rows.toLocaleString("en")} | ${rate[0].toFixed(0)} → ${rate[1].toFixed(0)} chunks/s | ${oldMs.toFixed(0)} ms | ${newMs.toFixed(0)} ms (cache ${(est / rows).toFixed(0)} B/chunk) | ${(newMs / oldMs).toFixed(2)} |`,
  );
  if (old.size !== rows) throw new Error("the two loaders disagree");
  // LanceDB's own ANN index on the same table, for the choice between it and the in-memory lists: build time,
  // query latency through the Lance reader with the tag filter applied first, recall@4 against the exact cache
  const exact = store.activeGeneration().vectorCache.get("p")!;
  const g2 = store.activeGeneration();
  if (args["lance-index"] === "yes") {
  const q = bigWorld({ chunks: 10, queries: 100, seed: 99 }).queries;
  const vecs = await Promise.all(q.map(async (x) => (await emb.embed([x.text]))[0]));
  s0 = performance.now();
  await g2.chunks.createIndex("vector", { config: lancedb.Index.ivfPq({ numPartitions: Math.round(Math.sqrt(rows)), numSubVectors: 48, distanceType: "cosine" }) });
  const ixMs = performance.now() - s0;
  const lat: number[] = [];
  let hit = 0;
  let want = 0;
  for (let i = 0; i < q.length; i++) {
    const s1 = performance.now();
    const got = (await g2.chunks.vectorSearch(vecs[i]).distanceType("cosine").where(loreFilter("p", q[i].tags)).nprobes(20).refineFactor(4).select(["id"]).limit(20).toArray()) as Raw[];
    lat.push(performance.now() - s1);
    const ids = new Set(got.slice(0, 4).map((r) => String(r.id)));
    const ex = exact.search(vecs[i], new Set(q[i].tags), 4);
    hit += ex.filter((h) => ids.has(h.id)).length;
    want += ex.length;
  }
  lance.push(`| ${rows.toLocaleString("en")} | ${(ixMs / 1000).toFixed(1)} s | ${pct(lat, 0.5).toFixed(1)} / ${pct(lat, 0.99).toFixed(1)} ms | ${(hit / want).toFixed(3)} |`);
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\n### Cold load of a project's vectors — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}. Hashing embedder, ${perDoc} chunks per document, LanceDB optimized before the load.\n`);
console.log("| chunks | writes (VectorStore, first → last tenth) | float32 loader | int8 loader (today) | time ratio |");
console.log("|---|---|---|---|---|");
for (const r of out) console.log(r);
console.log("\nThe project's snapshot file against the LanceDB load, same run (the snapshot read by a freshly opened store; first search after it includes embedding the query):\n");
console.log("| chunks | int8 loader from LanceDB | from the snapshot file | time ratio | first search after | file |");
console.log("|---|---|---|---|---|---|");
for (const r of snapOut) console.log(r);
console.log("\nLanceDB's own IVF_PQ index on the same table (√N partitions, 48 sub-vectors, nprobes 20, refine ×4, the tag filter applied first), 100 question queries, recall@4 against the exact in-memory scan (ties not credited):\n");
console.log("| chunks | index build | query p50 / p99 | recall@4 |");
console.log("|---|---|---|---|");
for (const r of lance) console.log(r);
