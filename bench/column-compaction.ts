// Deleted documents' rows in the project vector cache's columns: the code as it was (another checkout, --before),
// which kept them until the project was loaded again, and this one, which compacts the columns in the background
// (src/vectors/columnCompaction.ts). Each arm is a child process of its own code, interleaved run by run. A child
// writes a world of `--docs` one-chunk documents (384 dims, sparse vectors as the hashing embedder's, the server's
// id shapes, 20 tags, 50 locations) with its own code, restores it from its snapshot file (one set of columns), then
// churns `--churn` of the documents in batches of `--batch` (half deleted, half replaced by new rows), turning the
// event loop between batches as a server does between requests, and waits for its background work to end.
// Reported per arm: the rows the live documents' columns hold against their live rows, the heap and array buffers
// after full collections (after the restore and after the churn), the cache's estimate, the CPU of the churn and what
// it set off; for this code, each compaction step's CPU and wall time (a step is the JS thread's pause; on a loaded
// box its wall time is mostly other processes' turns).
// Usage: bun bench/column-compaction.ts --before <checkout> [--docs 100000] [--churn 0.3] [--batch 100] [--runs 2]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({ options: { before: { type: "string" }, docs: { type: "string", default: "100000" }, churn: { type: "string", default: "0.3" }, batch: { type: "string", default: "100" }, runs: { type: "string", default: "2" }, child: { type: "string" }, root: { type: "string" } } });

if (args.child) await child(args.child, Number(args.docs));
else parent();

function parent(): void {
  if (!args.before) throw new Error("--before <checkout> is required");
  const arms = [
    { label: "before", root: resolve(args.before) },
    { label: "now", root: resolve(join(import.meta.dir, "..")) },
  ];
  console.log(`# column compaction: ${args.docs} one-chunk documents, ${Number(args.churn) * 100} % churned in batches of ${args.batch}; ${cpus()[0]?.model ?? "?"} (${availableParallelism()} cores), load ${loadavg()[0].toFixed(1)} at start, Bun ${Bun.version}`);
  console.log("| run | arm | live rows | rows in the live documents' columns | heap after restore (MB) | heap after churn (MB) | array buffers after churn (MB) | cache estimate (MB) | churn CPU, all in (s) | compactions | step CPU p50 / p99 / max (ms) | step wall p50 / max (ms) | steps' CPU in all (ms) |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (let run = 1; run <= Number(args.runs); run++) {
    for (const arm of run % 2 ? arms : [...arms].reverse()) {
      const dir = mkdtempSync(join(tmpdir(), "lorehold-compaction-"));
      const r = spawnSync(process.execPath, [import.meta.path, "--child", dir, "--root", arm.root, "--docs", String(args.docs), "--churn", String(args.churn), "--batch", String(args.batch)], { encoding: "utf8" });
      rmSync(dir, { recursive: true, force: true });
      if (r.status !== 0) throw new Error(`${arm.label}: ${r.stderr}`);
      const o = JSON.parse(r.stdout.trim().split("\n").pop()!);
      console.log(`| ${run} | ${arm.label} | ${o.live} | ${o.held} | ${o.heapRestored} | ${o.heapChurned} | ${o.buffers} | ${o.estimate} | ${o.cpu} | ${o.compactions} | ${o.pause} |`);
    }
  }
  console.log(`load ${loadavg()[0].toFixed(1)} at the end`);
}

async function child(dir: string, n: number): Promise<void> {
  const { ProjectVectorCache } = await import(join(args.root!, "src/vectors/ProjectVectorCache.ts"));
  const snap = await import(join(args.root!, "src/vectors/cacheSnapshot.ts"));
  // this code's compaction steps timed one by one (the earlier code has none)
  const steps: number[] = [];
  const stepCpu: number[] = [];
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  try {
    const { ColumnCompaction } = await import(join(args.root!, "src/vectors/columnCompaction.ts"));
    const proto = ColumnCompaction.prototype as unknown as { steps: (...a: unknown[]) => Generator<void, void> };
    const inner = proto.steps;
    proto.steps = function* (this: unknown, ...a: unknown[]) {
      const g = inner.apply(this, a);
      for (;;) {
        const t0 = performance.now();
        const c0 = cpuMs();
        const r = g.next();
        steps.push(performance.now() - t0);
        stepCpu.push(cpuMs() - c0);
        if (r.done) return r.value;
        yield;
      }
    };
  } catch {
    // the earlier code: no compaction
  }
  const DIMS = 384;
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const vector = () => {
    const v = new Float32Array(DIMS);
    for (let i = 0; i < 30; i++) v[Math.floor(rnd() * DIMS)] += rnd() - 0.5;
    return v;
  };
  const row = (d: number, version: number) => {
    const documentId = `doc_${d.toString(36).padStart(20, "0")}`;
    return { documentId, rows: [{ id: `chunk_${(d * 7919 + version).toString(36).padStart(20, "0")}`, projectId: "p", documentId, documentName: `Document ${d}`, chunkIndex: 0, tags: [`tag${d % 20}`], locationId: d % 3 ? `loc_${d % 50}` : null }], vectors: [vector()] };
  };
  const path = join(dir, "p.vc");
  await (async () => {
    const src = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
    for (let d = 0; d < n; d++) {
      const x = row(d, 0);
      src.setDocument(x.documentId, x.rows, x.vectors);
    }
    const blocks = src.blocks();
    snap.commitSnapshot(await snap.writeSnapshotTmp(path, { gen: 1, embedderId: "e", dims: DIMS, projectId: "p" }, blocks, { index: null, columns: false }), path);
  })();
  const gc = () => {
    for (let i = 0; i < 3; i++) Bun.gc(true);
  };
  const heap = () => {
    gc();
    return process.memoryUsage();
  };
  const m0 = heap();
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY });
  snap.restoreInto(cache, snap.readSnapshot(path));
  const m1 = heap();
  // the churn: documents picked at random, half deleted, half replaced; the loop turns between batches
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const churned = order.slice(0, Math.round(Number(args.churn) * n));
  const batch = Number(args.batch);
  const c0 = process.cpuUsage();
  for (let at = 0; at < churned.length; at += batch) {
    const xs = churned.slice(at, at + batch);
    const replaced: ReturnType<typeof row>[] = [];
    for (const d of xs) {
      if (d % 2) replaced.push(row(d, 1));
      else cache.deleteDocument(row(d, 0).documentId);
    }
    cache.setDocuments(replaced);
    await Bun.sleep(0);
  }
  await cache.indexIdle();
  const c = process.cpuUsage(c0);
  const m2 = heap();
  const held = new Set<{ rows: number }>(cache.blocks().map((b: { cols: { rows: number } }) => b.cols));
  let heldRows = 0;
  for (const s of held) heldRows += s.rows;
  const mb = (b: number) => (b / 1e6).toFixed(1);
  if (process.env.DUMP_STEPS) console.error(steps.map((w, i) => `${i + 1}:${w.toFixed(1)}/${stepCpu[i].toFixed(1)}`).join(" "));
  const worst = stepCpu.indexOf(Math.max(...stepCpu));
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(2);
  const pause = steps.length ? `${q(stepCpu, 0.5)} / ${q(stepCpu, 0.99)} / ${q(stepCpu, 1)} (step ${worst + 1} of ${steps.length}) | ${q(steps, 0.5)} / ${q(steps, 1)} | ${stepCpu.reduce((a, b) => a + b, 0).toFixed(0)}` : "– | – | –";
  const compactions = (cache as { compaction?: { done: number } }).compaction?.done ?? "–";
  console.log(JSON.stringify({ live: cache.size, held: `${heldRows} in ${held.size} sets`, heapRestored: mb(m1.heapUsed - m0.heapUsed), heapChurned: mb(m2.heapUsed - m0.heapUsed), buffers: mb(m2.arrayBuffers - m0.arrayBuffers), estimate: mb(cache.bytes), cpu: ((c.user + c.system) / 1e6).toFixed(2), compactions, pause }));
  (globalThis as { keep?: unknown }).keep = cache;
}
