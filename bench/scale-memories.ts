// Memory retrieval in a project of many memories: LanceDB's filtered vector search (how memories were searched)
// side by side with the group cache (src/vectors/memoryGroups.ts) — a group's first search, which reads it from
// LanceDB, and its later ones, from memory — in one run over one table.
// The world: `--players` players, each with memories of a few of `--minds` minds, `--memories` in all (~10 a
// player and mind), sentences of the quality world's lore (bench/support/bigWorld.ts), hashing embedder.
// The bulk load writes LanceDB directly (Table.add in big batches): upsertMemories' merge-insert is what a turn
// does, not what a bench should spend an hour on. Reports search p50 / p99 and RSS.
// Usage: bun bench/scale-memories.ts [--memories 1000000] [--players 100000] [--minds 1000] [--queries 300]
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { VectorStore } from "../src/vectors/VectorStore.ts";
import { asData } from "../src/vectors/generation.ts";
import { memoryFilter } from "../src/vectors/filters.ts";
import { memoryRecord } from "../src/vectors/vectorRecords.ts";
import type { MemoryRow } from "../src/vectors/rows.ts";
import { bigWorld } from "./support/bigWorld.ts";

const { values: args } = parseArgs({
  options: {
    memories: { type: "string", default: "1000000" },
    players: { type: "string", default: "100000" },
    minds: { type: "string", default: "1000" },
    queries: { type: "string", default: "300" },
  },
});
const total = Number(args.memories);
const players = Number(args.players);
const minds = Number(args.minds);
const nq = Number(args.queries);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const fmt = (xs: number[]) => `${pct(xs, 0.5).toFixed(2)} / ${pct(xs, 0.99).toFixed(2)} ms`;

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-memories-"));
const emb = new HashingEmbedder();
const store = await VectorStore.open(dir, emb);
const g = store.activeGeneration();
// sentences to draw memory texts from: the generated world's chunks cut to ~12 words
const sentences = bigWorld({ chunks: 5000, queries: 1 }).chunks.map((c) => c.text.split(" ").slice(0, 12).join(" "));
let x = 12345;
const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296);
// each player meets 2 minds (a per-player pair), ~total / players / 2 memories with each
const mindsOf = (p: number) => [p % minds, (p * 7 + 3) % minds];
const perGroup = Math.max(1, Math.round(total / players / 2));
const t0 = performance.now();
let written = 0;
const BATCH = 20_000;
let batch: MemoryRow[] = [];
const flush = async () => {
  if (!batch.length) return;
  const vectors = await emb.embed(batch.map((m) => m.text));
  await g.memories.add(asData(g, "memories", batch.map((m, i) => memoryRecord(m, vectors[i]))));
  written += batch.length;
  batch = [];
};
for (let p = 0; p < players && written + batch.length < total; p++) {
  for (const m of mindsOf(p)) {
    for (let i = 0; i < perGroup; i++) {
      batch.push({ id: `m${p}-${m}-${i}`, projectId: "p", entityMindId: `mind${m}`, playerId: `player${p}`, text: sentences[Math.floor(rnd() * sentences.length)], importance: 5, topics: [], createdAt: "2026-01-15T12:00:00.000Z" });
    }
  }
  if (batch.length >= BATCH) await flush();
}
await flush();
const writeS = (performance.now() - t0) / 1000;
const t1 = performance.now();
await store.optimizeNow(); // the scalar indexes take in the new rows, as the upkeep job does after writes
const optimizeS = (performance.now() - t1) / 1000;

const queries = Array.from({ length: nq }, () => {
  const p = Math.floor(rnd() * Math.min(players, Math.ceil(written / (2 * perGroup))));
  const m = mindsOf(p)[Math.floor(rnd() * 2)];
  return { projectId: "p", entityMindId: `mind${m}`, playerId: `player${p}`, query: sentences[Math.floor(rnd() * sentences.length)].split(" ").slice(0, 6).join(" "), k: 8 };
});
const lance: number[] = [];
const cold: number[] = [];
const warm: number[] = [];
let agree = 0;
let compared = 0;
for (const q of queries.slice(0, 10)) await store.searchMemories(q); // JIT and file warm-up
g.memoryGroups.deleted({ projectId: "p" }); // forget the warm-up's groups: the cold column reads each group first
for (const q of queries) {
  // LanceDB's filtered vector search, as searchMemories ran before the group cache
  let s = performance.now();
  const [v] = await emb.embed([q.query]);
  const old = await g.memories.vectorSearch(v).distanceType("cosine").where(memoryFilter(q)).limit(q.k).toArray();
  lance.push(performance.now() - s);
  const cached = g.memoryGroups.has(`${q.projectId}\u0000${q.entityMindId}\u0000${q.playerId}`);
  s = performance.now();
  const first = await store.searchMemories(q);
  (cached ? warm : cold).push(performance.now() - s);
  s = performance.now();
  const again = await store.searchMemories(q);
  warm.push(performance.now() - s);
  const oldScores = old.map((r) => (1 - Number(r._distance)).toFixed(4)).join();
  compared++;
  if (first.map((h) => h.score.toFixed(4)).join() === oldScores && again.map((h) => h.score.toFixed(4)).join() === oldScores) agree++;
}
const rss = process.memoryUsage().rss / 1e6;
console.log(`\n### Memories at scale — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(
  `Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((v) => v.toFixed(1)).join(" ")}; Bun ${Bun.version}. Hashing embedder, one project: ${written.toLocaleString("en")} memories, ${Math.min(players, Math.ceil(written / (2 * perGroup))).toLocaleString("en")} players × 2 of ${minds} minds, ${perGroup} memories a group; written in ${writeS.toFixed(0)} s, indexes optimized in ${optimizeS.toFixed(0)} s. ${nq} searches (k = 8) of random groups.\n`,
);
console.log("| memories | LanceDB filtered vector search p50 / p99 | group's first search (reads it) | group cached | same scores as LanceDB | RSS after |");
console.log("|---|---|---|---|---|---|");
console.log(`| ${written.toLocaleString("en")} | ${fmt(lance)} | ${fmt(cold)} | ${fmt(warm)} | ${agree} / ${compared} | ${rss.toFixed(0)} MB |`);
await store.close();
rmSync(dir, { recursive: true, force: true });
