// The JS heap a project vector cache holds once restored from its snapshot file, the code as it was (another
// checkout, --before) and this one: each arm a child process of its own code, interleaved run by run. The file is
// written by each arm's own code (so each reads the header its version writes), from one generated world of
// `--docs` one-chunk documents (384 dims, sparse vectors as the hashing embedder's, the server's id shapes, 20 tags,
// 50 locations). Reported per arm: the heap and array buffers after full collections, the process's RSS, the
// cache's own estimate, and the most common new objects; then `--queries` searches (sparse random queries of 30 dims,
// 3 of the 20 tags visible, 8 hits), after the column copy a first search starts is built: CPU per search p50 / p99.
// Usage: bun bench/restore-heap.ts --before <checkout> [--docs 100000] [--runs 2] [--queries 2000]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({ options: { before: { type: "string" }, docs: { type: "string", default: "100000" }, queries: { type: "string", default: "2000" }, runs: { type: "string", default: "2" }, child: { type: "string" }, root: { type: "string" } } });

if (args.child) await child(args.child, Number(args.docs));
else parent();

function parent(): void {
  if (!args.before) throw new Error("--before <checkout> is required");
  const arms = [
    { label: "before", root: resolve(args.before) },
    { label: "now", root: resolve(join(import.meta.dir, "..")) },
  ];
  console.log(`# restore heap: ${args.docs} one-chunk documents; ${cpus()[0]?.model ?? "?"} (${availableParallelism()} cores), load ${loadavg()[0].toFixed(1)} at start, Bun ${Bun.version}`);
  console.log("| run | arm | rows | heap after restore (MB) | per document (B) | array buffers (MB) | RSS (MB) | cache estimate (MB) | search CPU p50 / p99 (ms) | most common new objects |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (let run = 1; run <= Number(args.runs); run++) {
    for (const arm of run % 2 ? arms : [...arms].reverse()) {
      const dir = mkdtempSync(join(tmpdir(), "lorehold-restore-heap-"));
      const r = spawnSync(process.execPath, [import.meta.path, "--child", dir, "--root", arm.root, "--docs", String(args.docs), "--queries", String(args.queries)], { encoding: "utf8" });
      rmSync(dir, { recursive: true, force: true });
      if (r.status !== 0) throw new Error(`${arm.label}: ${r.stderr}`);
      const o = JSON.parse(r.stdout.trim().split("\n").pop()!);
      console.log(`| ${run} | ${arm.label} | ${o.rows} | ${o.heapMb} | ${o.perDoc} | ${o.buffersMb} | ${o.rssMb} | ${o.estimateMb} | ${o.search} | ${o.top} |`);
    }
  }
  console.log(`load ${loadavg()[0].toFixed(1)} at the end`);
}

async function child(dir: string, n: number): Promise<void> {
  const { heapStats } = await import("bun:jsc");
  const { ProjectVectorCache } = await import(join(args.root!, "src/vectors/ProjectVectorCache.ts"));
  const snap = await import(join(args.root!, "src/vectors/cacheSnapshot.ts"));
  const DIMS = 384;
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const path = join(dir, "p.vc");
  // the world written and saved in a scope of its own: gone before the counts
  await (async () => {
    const src = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
    for (let d = 0; d < n; d++) {
      const v = new Float32Array(DIMS);
      for (let i = 0; i < 30; i++) v[Math.floor(rnd() * DIMS)] += rnd() - 0.5;
      const documentId = `doc_${d.toString(36).padStart(20, "0")}`;
      src.setDocument(documentId, [{ id: `chunk_${(d * 7919).toString(36).padStart(20, "0")}`, projectId: "p", documentId, documentName: `Document ${d}`, chunkIndex: 0, tags: [`tag${d % 20}`], locationId: d % 3 ? `loc_${d % 50}` : null }], [v]);
    }
    const blocks = src.blocks();
    snap.commitSnapshot(await snap.writeSnapshotTmp(path, { gen: 1, embedderId: "e", dims: DIMS, projectId: "p" }, blocks, { index: null, columns: false }), path);
  })();
  const gc = () => {
    for (let i = 0; i < 3; i++) Bun.gc(true);
  };
  gc();
  const h0 = heapStats();
  const m0 = process.memoryUsage();
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  snap.restoreInto(cache, snap.readSnapshot(path));
  gc();
  const h1 = heapStats();
  const m1 = process.memoryUsage();
  const top = Object.entries(h1.objectTypeCounts)
    .map(([k, v]) => [k, v - (h0.objectTypeCounts[k] ?? 0)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([k, v]) => `${k} ${(v / 1000).toFixed(0)}k`)
    .join(", ");
  const mb = (b: number) => (b / 1e6).toFixed(1);
  const query = () => {
    const v = new Float32Array(DIMS);
    for (let i = 0; i < 30; i++) v[Math.floor(rnd() * DIMS)] += rnd() - 0.5;
    return { v, tags: new Set(Array.from({ length: 3 }, () => `tag${Math.floor(rnd() * 20)}`)) };
  };
  const first = query();
  cache.search(first.v, first.tags, 8);
  await cache.indexIdle();
  const cpu: number[] = [];
  for (let q = 0; q < Number(args.queries); q++) {
    const { v, tags } = query();
    const c0 = process.cpuUsage();
    cache.search(v, tags, 8);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  cpu.sort((a, b) => a - b);
  const at = (p: number) => cpu[Math.min(cpu.length - 1, Math.floor(p * cpu.length))].toFixed(2);
  const search = cpu.length ? `${at(0.5)} / ${at(0.99)}` : "–";
  console.log(JSON.stringify({ rows: cache.size, heapMb: mb(h1.heapSize - h0.heapSize), perDoc: ((h1.heapSize - h0.heapSize) / n).toFixed(0), buffersMb: mb(m1.arrayBuffers - m0.arrayBuffers), rssMb: (m1.rss / 1e6).toFixed(0), estimateMb: mb(cache.bytes), search, top }));
  (globalThis as { keep?: unknown }).keep = cache;
}
