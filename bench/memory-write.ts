// A memory's write into a big memories table (what each event about a player costs after its SQLite
// transaction: src/vectors/memoryIndex.ts upsertMemories), measured on a copy of a world's LanceDB folder.
// Usage: bun bench/memory-write.ts --lance <copy of a world's data/lance> [--writes 30]
import { parseArgs } from "node:util";
import { availableParallelism, cpus, loadavg } from "node:os";
import * as lancedb from "@lancedb/lancedb";
import { memorySchema, toArrowTable } from "../src/vectors/schemas.ts";
import { memoryRecord, toMemoryRow, type Raw } from "../src/vectors/vectorRecords.ts";

const { values: args } = parseArgs({ options: { lance: { type: "string" }, writes: { type: "string", default: "30" }, optimize: { type: "boolean", default: false } } });
if (!args.lance) throw new Error("--lance <dir> is required");
const db = await lancedb.connect(args.lance);
const t = await db.openTable("memories_g1");
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
console.log(`${(await t.countRows()).toLocaleString("en")} memories; load ${loadavg()[0].toFixed(1)}; ${availableParallelism()} cores (${cpus()[0]?.model})`);
for (const ix of await t.listIndices()) console.log(ix.name, ix.columns, JSON.stringify(await t.indexStats(ix.name)));
const [sample] = await t.query().limit(1).toArray();
let n = 0;
const base = toMemoryRow(sample as Raw);
const vector = Float32Array.from(sample.vector.toArray());
const dims = vector.length;
const row = () => toArrowTable(memorySchema(dims), [memoryRecord({ ...base, id: `bench-mem-${Date.now()}-${n++}` }, vector)])!;
async function measure(label: string, write: () => Promise<unknown>) {
  const c: number[] = [];
  const w: number[] = [];
  for (let i = 0; i < Number(args.writes); i++) {
    const c0 = cpu();
    const t0 = performance.now();
    await write();
    w.push(performance.now() - t0);
    c.push(cpu() - c0);
  }
  console.log(`| ${label} | ${pct(w, 0.5).toFixed(1)} / ${pct(w, 0.99).toFixed(1)} ms | ${pct(c, 0.5).toFixed(1)} / ${pct(c, 0.99).toFixed(1)} ms |`);
}
const merge = () => t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(row());
const add = () => t.add(row());
await measure("mergeInsert", merge);
await measure("add", add);
await measure("mergeInsert", merge);
await measure("add", add);
if (args.optimize) {
  const c0 = cpu();
  const t0 = performance.now();
  await t.optimize();
  console.log(`optimize: ${(performance.now() - t0).toFixed(0)} ms wall, ${(cpu() - c0).toFixed(0)} ms CPU`);
  for (const ix of await t.listIndices()) console.log(ix.name, JSON.stringify(await t.indexStats(ix.name)));
  await measure("mergeInsert, indexes optimized", merge);
  await measure("add, indexes optimized", add);
}
