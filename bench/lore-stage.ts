// The lore retrieval stage of a turn (src/retrieval/hybridSearch.ts retrieveLore) split into its parts, to find where
// its tail comes from: the vector half (the query embedded and the project's vector cache searched), the BM25 half
// (SQLite FTS5), the fusion with the visibility check against SQLite, and the kept hits' text read. Each part's wall
// and CPU percentiles (CPU: the process's, the collector's threads included) and the cells it allocates a call
// (bun:jsc objectTypeCounts, which count garbage not collected yet). The minds' visible tags and lore gates as a
// turn makes them (bench/first-turn.ts's stages). It works IN PLACE on `--world` (pass a copy: the server writes its
// files there) with the code of `--code` (a checkout; this one by default), so two versions run one after the other
// on the same copy.
// Usage: bun bench/lore-stage.ts --world /tmp/copy-of-the-1M-world [--code /tmp/old-checkout] [--queries 400] [--label now]
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gcAndSweep, heapSize, heapStats } from "bun:jsc";

const { values: args } = parseArgs({
  options: { world: { type: "string" }, code: { type: "string", default: resolve(import.meta.dir, "..") }, queries: { type: "string", default: "400" }, label: { type: "string", default: "this code" } },
});
if (!args.world) throw new Error("--world <a copy of a world folder> is required");
const code = resolve(args.code!);
const load = async <T>(path: string): Promise<T> => (await import(join(code, path))) as T;
const { App } = await load<typeof import("../src/app/App.ts")>("src/app/App.ts");
const { loadConfig } = await load<typeof import("../src/config/config.ts")>("src/config/config.ts");
const { silentLogger } = await load<typeof import("../src/ops/logger.ts")>("src/ops/logger.ts");
const { loadMindProfile } = await load<typeof import("../src/npc/mindProfile.ts")>("src/npc/mindProfile.ts");
const { loadSession } = await load<typeof import("../src/npc/session/sessionStore.ts")>("src/npc/session/sessionStore.ts");
const { trustForScope } = await load<typeof import("../src/behaviour/trust.ts")>("src/behaviour/trust.ts");
const { gatherConditions } = await load<typeof import("../src/retrieval/turnGate.ts")>("src/retrieval/turnGate.ts");
const { visibleTags } = await load<typeof import("../src/npc/visibleTags.ts")>("src/npc/visibleTags.ts");
const { chunkTextSearch, stillVisible } = await load<typeof import("../src/retrieval/hybridSearch.ts")>("src/retrieval/hybridSearch.ts");
const { reciprocalRankFusion } = await load<typeof import("../src/retrieval/rrf.ts")>("src/retrieval/rrf.ts");
const { chunkContents } = await load<typeof import("../src/lore/documents/chunkSearchStore.ts")>("src/lore/documents/chunkSearchStore.ts");

const w = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; minds: string[]; players: number };
const config = loadConfig({ cwd: args.world, env: {}, flags: { dataDir: join(args.world, "data"), modelsDir: join(args.world, "models"), contextSize: 4096, maxReplyTokens: 64, threads: 1, logLevel: "silent", vectorIndexMinChunks: 0 } as never });
const app = await App.create(config, { logger: silentLogger, loadModel: false });
const ctx = app.ctx;
await ctx.vectors.warm([w.projectId]);
await (await ctx.vectors.projectCache(ctx.vectors.activeGeneration(), w.projectId)).indexIdle();

let seed = 0x2545f491;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const LINES = ["Tell me about the harbour and the lantern.", "Who guards the north gate at night?", "What do you know of the salt debt?", "Have you seen the ferryman?", "What happened at the mill?"];
// a turn's visible tags and lore gate for each of the first minds (as prepareTurn makes them)
const turns = await Promise.all(
  w.minds.slice(0, 200).map(async (mindId) => {
    const mind = loadMindProfile(ctx, w.projectId, mindId);
    const playerId = `player${Math.floor(rnd() * w.players)}`;
    loadSession(ctx, w.projectId, mindId, playerId);
    const trust = trustForScope(ctx, { projectId: w.projectId, mindId, playerId }, mind.behaviour);
    const cond = await gatherConditions(ctx, w.projectId, { mind, playerId, history: [], trust });
    return { tags: visibleTags(cond.openTags, undefined).tags, gate: cond.lore };
  }),
);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const PARTS = ["vector half (embed + cache search)", "BM25 half (FTS5)", "fusion + visibility check", "kept hits' text", "the stage"] as const;
const wall = PARTS.map(() => [] as number[]);
const cpu = PARTS.map(() => [] as number[]);
const cells = PARTS.map(() => [] as number[]);
/** per timed stage: whether a collection ran during it (bun:jsc heapSize changes only when one ends) */
const collected: boolean[] = [];
const countCells = () => {
  let n = 0;
  for (const v of Object.values(heapStats().objectTypeCounts)) n += v;
  return n;
};

// what counting itself allocates (the stats object it reads), taken off each count
const countBase = (() => {
  const a = countCells();
  return countCells() - a;
})();

/** One lore retrieval, part by part (hybridSearch.ts retrieveLore's steps, k = 4); `count`: cells of each part instead of times. */
async function stage(i: number, count: boolean): Promise<void> {
  const t = turns[i % turns.length];
  const query = LINES[Math.floor(rnd() * LINES.length)];
  const n = 20;
  const held = t.gate.exclusion ? (documentId: string) => t.gate.blocks(documentId) : undefined;
  const marks: { w: number; c: number; k: number }[] = [];
  const mark = () => marks.push({ w: performance.now(), c: cpuMs(), k: count ? countCells() : 0 });
  if (count) gcAndSweep();
  const h0 = heapSize();
  mark();
  const byVector = await ctx.vectors.searchVectorHits({ projectId: w.projectId, query, tags: t.tags, n, excludeDocument: held });
  mark();
  const byText = chunkTextSearch(ctx, { projectId: w.projectId, query, tags: t.tags, n, exclude: t.gate.exclusion ?? undefined });
  mark();
  const fused = reciprocalRankFusion<{ id: string }>([byVector, byText], (r) => r.id);
  const ok = stillVisible(ctx, w.projectId, fused.map((f) => f.item.id), t.tags, t.gate);
  const kept = fused.filter((f) => ok.has(f.item.id)).slice(0, 4);
  mark();
  chunkContents(ctx.db, w.projectId, kept.map((f) => f.item.id));
  mark();
  for (let p = 0; p < 4; p++) {
    if (count) cells[p].push(marks[p + 1].k - marks[p].k - countBase);
    else {
      wall[p].push(marks[p + 1].w - marks[p].w);
      cpu[p].push(marks[p + 1].c - marks[p].c);
    }
  }
  if (count) cells[4].push(marks[4].k - marks[0].k - 4 * countBase);
  else {
    wall[4].push(marks[4].w - marks[0].w);
    cpu[4].push(marks[4].c - marks[0].c);
    collected.push(heapSize() !== h0);
  }
}

for (let i = 0; i < 50; i++) await stage(i, false);
for (const xs of [...wall, ...cpu]) xs.length = 0;
collected.length = 0;
const load0 = loadavg()[0];
for (let i = 0; i < Number(args.queries); i++) await stage(i, false);
const load1 = loadavg()[0];
for (let i = 0; i < 60; i++) await stage(i, true);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const f = (xs: number[]) => `${pct(xs, 0.5).toFixed(2)} / ${pct(xs, 0.9).toFixed(2)} / ${pct(xs, 0.99).toFixed(2)} ms`;
console.log(`\n### The lore retrieval stage, part by part — ${args.label} (${code}), ${new Date().toISOString().slice(0, 16)} UTC\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end; Bun ${Bun.version}. ${args.queries} stages over ${turns.length} minds' visible tags and gates, k = 4 (20 candidates a half).\n`);
console.log("| part | wall p50 / p90 / p99 | CPU p50 / p90 / p99 | cells a call (median) |");
console.log("|---|---|---|---|");
PARTS.forEach((p, i) => console.log(`| ${p} | ${f(wall[i])} | ${f(cpu[i])} | ${pct(cells[i], 0.5)} |`));
const split = (gc: boolean) => cpu[4].filter((_, i) => collected[i] === gc);
const quiet = split(false);
const busy = split(true);
console.log(`\nStages during which a collection ran: ${busy.length} of ${collected.length}. The stage's CPU p50 / p90 / p99 without one: ${quiet.length ? f(quiet) : "–"}; with one: ${busy.length ? f(busy) : "–"}.`);
await app.stop();
