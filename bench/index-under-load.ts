// The IVF index's background build while searches come back to back in process (as `app.handle` in a loop sends
// them, bench/preview-overhead.ts): their awaits resolve as microtasks, so no timer runs between them. Reports how
// many searches and how much time until the index answers (or that it never did within --seconds), and each
// search's CPU while the build runs and after. Vectors: dense, clustered (a neural embedder's shape), seeded.
// Usage: bun bench/index-under-load.ts [--rows 100000] [--dims 384] [--seconds 120]
import { parseArgs } from "node:util";
import { availableParallelism, cpus, loadavg } from "node:os";
import { ProjectVectorCache } from "../src/vectors/ProjectVectorCache.ts";

const { values: args } = parseArgs({ options: { rows: { type: "string", default: "100000" }, dims: { type: "string", default: "384" }, seconds: { type: "string", default: "120" } } });
const rows = Number(args.rows);
const dims = Number(args.dims);
let x = 11;
const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
const centres = Array.from({ length: 300 }, () => Float32Array.from({ length: dims }, rnd));
const near = (c: number) => Float32Array.from(centres[c % centres.length], (v) => v + 0.4 * rnd());
const cache = new ProjectVectorCache(dims, "p", { indexMinRows: 20_000 });
for (let d = 0; d < rows / 10; d++) {
  const meta = Array.from({ length: 10 }, (_, i) => ({ id: `d${d}:${i}`, projectId: "p", documentId: `d${d}`, documentName: `Doc ${d}`, chunkIndex: i, tags: [`t${(d + i) % 20}`], locationId: null }));
  cache.setDocument(`d${d}`, meta, meta.map((_, i) => near(d * 7 + i)));
}
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const tags = new Set(["t1", "t2", "t3"]);
const during: number[] = [];
const t0 = performance.now();
let searches = 0;
while (cache.mode !== "indexed" && performance.now() - t0 < Number(args.seconds) * 1000) {
  const c0 = cpu();
  cache.search(near(searches), tags, 8);
  await Promise.resolve();
  during.push(cpu() - c0);
  searches++;
}
const built = cache.mode === "indexed";
const wall = performance.now() - t0;
const after: number[] = [];
for (let i = 0; i < 300 && built; i++) {
  const c0 = cpu();
  cache.search(near(i), tags, 8);
  after.push(cpu() - c0);
}
const med = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[xs.length >> 1].toFixed(2) : "–");
console.log(`${rows.toLocaleString("en")} rows × ${dims} dims; ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}`);
console.log(`| index built | searches until then | wall until then | CPU a search while it builds (p50) | CPU a search through the index (p50) |`);
console.log(`|---|---|---|---|---|`);
console.log(`| ${built ? "yes" : `no, after ${args.seconds} s`} | ${searches.toLocaleString("en")} | ${(wall / 1000).toFixed(1)} s | ${med(during)} ms | ${med(after)} ms |`);
