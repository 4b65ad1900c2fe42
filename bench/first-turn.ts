// Where a mind's first turn since the start goes, stage by stage: the steps prepareTurn takes (src/npc/prepareTurn.ts),
// called one by one for a mind seen for the first time, then again for the same mind (seen), each with its wall
// time and the process's CPU time (user + system: LanceDB's threads included). Then whole `interact-preview`
// requests (in process, `app.handle`) for first-seen minds, and a player's first turn with a mind under enhanced
// retrieval. The world is bench/preview-overhead.ts's (`--world`, topped up by bench/world-scale.ts --seed);
// each run works on a fresh copy of it, so runs of two versions of the code meet the same world.
// Usage: bun bench/first-turn.ts --world /tmp/w1m [--minds 150] [--previews 200] [--label now] [--stages yes|no]
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { heapStats } from "bun:jsc";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { readSettings, updateSettings } from "../src/projects/settings.ts";
import { loadMindProfile } from "../src/npc/mindProfile.ts";
import { loadSession } from "../src/npc/session/sessionStore.ts";
import { trustForScope } from "../src/behaviour/trust.ts";
import { gatherConditions } from "../src/retrieval/turnGate.ts";
import { visibleTags } from "../src/npc/visibleTags.ts";
import { sharedLoreFor } from "../src/npc/sharedLore/sharedLore.ts";
import { fitMindPromptForTurn, fitOptions } from "../src/npc/prompt/fitStaticPrompt.ts";
import { retrieveLore } from "../src/retrieval/hybridSearch.ts";
import { retrieveMemories } from "../src/npc/memory/retrieveMemories.ts";
import { worldMemoryNotes } from "../src/events/worldMemories.ts";
import { turnSecrets } from "../src/npc/secrets/turnSecrets.ts";
import { conditionHolds } from "../src/conditions/compileCondition.ts";

const { values: args } = parseArgs({
  options: {
    world: { type: "string" },
    minds: { type: "string", default: "150" },
    previews: { type: "string", default: "200" },
    label: { type: "string", default: "this code" },
    stages: { type: "string", default: "yes" },
  },
});
if (!args.world) throw new Error("--world <folder> is required");
// each line with the process's RSS and the JS heap beside it (where memory went, section by section)
const rssFile = () => {
  try {
    const kb = /RssFile:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return kb ? `, of it file-backed ${(Number(kb) / 1e3).toFixed(0)} MB` : "";
  } catch {
    return ""; // not Linux
  }
};
const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s} (RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB${rssFile()}, JS heap ${(heapStats().heapSize / 1e6).toFixed(0)} MB)`);
const w = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; adminToken: string; minds: string[]; players: number; chunks: number };

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-first-"));
log(`copying the world to ${dir}`);
cpSync(join(args.world, "data"), join(dir, "data"), { recursive: true });
const config = loadConfig({ cwd: dir, env: {}, flags: { dataDir: join(dir, "data"), modelsDir: join(dir, "models"), contextSize: 4096, maxReplyTokens: 64, threads: 1, logLevel: "silent", vectorIndexMinChunks: 0 } as never });
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
type Sample = { wall: number; cpu: number };
const t0 = performance.now();
const c0 = cpu();
const app = await App.create(config, { logger: silentLogger, loadModel: false });
const ctx = app.ctx;
await ctx.vectors.warm([w.projectId]);
await (await ctx.vectors.projectCache(ctx.vectors.activeGeneration(), w.projectId)).indexIdle();
log(`started and the project's vectors loaded: ${(performance.now() - t0).toFixed(0)} ms wall, ${(cpu() - c0).toFixed(0)} ms CPU`);
// what the server's scheduler does within its first ticks after the start, off the request path (a code without the
// job: nothing, and `trigger` answers null)
const w0 = performance.now();
const wc0 = cpu();
const warmup = await app.scheduler.trigger("shared-lore-warmup");
const warmupLine = warmup ? `shared-lore warm-up at start: ${JSON.stringify(warmup.lastResult)} in ${(performance.now() - w0).toFixed(0)} ms wall, ${(cpu() - wc0).toFixed(0)} ms CPU` : "no shared-lore warm-up";
log(warmupLine);
// the memories' vectors copied beside their rows, once per embedder (a world built before the copy existed); a no-op
// on a world that has it, and nothing on a code without it (`trigger` answers null)
const f0 = performance.now();
const fc0 = cpu();
const fill = await app.scheduler.trigger("memory-vector-fill");
const fillLine = fill ? `memory vector copy at start: ${JSON.stringify(fill.lastResult)} in ${(performance.now() - f0).toFixed(0)} ms wall, ${(cpu() - fc0).toFixed(0)} ms CPU` : "no memory vector copy";
log(fillLine);
// the world memories' words written on their rows, once (a world built before they were): a no-op after
const ww0 = performance.now();
const wwc0 = cpu();
const words = await app.scheduler.trigger("world-memory-words");
const wordsLine = words ? `world-memory words at start: ${JSON.stringify(words.lastResult)} in ${(performance.now() - ww0).toFixed(0)} ms wall, ${(cpu() - wwc0).toFixed(0)} ms CPU` : "no world-memory words";
log(wordsLine);
let seed = 0x2545f491;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const LINES = ["Tell me about the harbour and the lantern.", "Who guards the north gate at night?", "What do you know of the salt debt?", "Have you seen the ferryman?", "What happened at the mill?"];
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];

async function timed<T>(f: () => T | Promise<T>): Promise<[T, Sample]> {
  const c = cpu();
  const t = performance.now();
  const r = await f();
  return [r, { wall: performance.now() - t, cpu: cpu() - c }];
}

const STAGES = ["settings + mind", "session + trust + conditions", "shared lore", "static prompt fitted", "lore retrieval", "memories (default)", "world memories", "all stages"] as const;
type Stage = (typeof STAGES)[number];

async function stages(mindId: string, playerId: string): Promise<Map<Stage, Sample>> {
  const out = new Map<Stage, Sample>();
  const text = pick(LINES);
  const all0 = { wall: performance.now(), cpu: cpu() };
  const [mind, a] = await timed(() => (readSettings(ctx, w.projectId), loadMindProfile(ctx, w.projectId, mindId)));
  out.set("settings + mind", a);
  const key = { projectId: w.projectId, mindId, playerId };
  const [cond, b] = await timed(() => {
    loadSession(ctx, w.projectId, mindId, playerId);
    const trust = trustForScope(ctx, key, mind.behaviour);
    return gatherConditions(ctx, w.projectId, { mind, playerId, history: [], trust });
  });
  out.set("session + trust + conditions", b);
  const visible = visibleTags(cond.openTags, undefined).tags;
  const secrets = turnSecrets(ctx.db, w.projectId, (c) => conditionHolds(c, cond.scope));
  const [shared, c] = await timed(() => secrets.shared(sharedLoreFor(ctx, w.projectId, mind, visible)));
  out.set("shared lore", c);
  const [, d] = await timed(() => fitMindPromptForTurn(ctx, mind, shared, fitOptions(ctx, mind)));
  out.set("static prompt fitted", d);
  const [, e] = await timed(async () => secrets.retrieved(await retrieveLore(ctx, { projectId: w.projectId, query: text, tags: visible, k: 4, gate: cond.lore })));
  out.set("lore retrieval", e);
  const [, f] = await timed(() => retrieveMemories(ctx, { projectId: w.projectId, mindId, playerId, query: text, enhanced: false, limit: 5 }));
  out.set("memories (default)", f);
  const [, g] = await timed(() => worldMemoryNotes(ctx, { projectId: w.projectId, mindId, query: text, history: [] }));
  out.set("world memories", g);
  out.set("all stages", { wall: performance.now() - all0.wall, cpu: cpu() - all0.cpu });
  return out;
}

const preview = (mind: string, player: string) =>
  timed(async () => {
    const res = await app.handle(
      new Request(`http://local/admin/v1/projects/${w.projectId}/interact-preview`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ text: pick(LINES), entityMindId: mind, playerId: player, memory: { retrieve: true } }),
      }),
    );
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`preview: ${res.status}`);
  }).then(([, s]) => s);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const row = (label: string, xs: Sample[]) =>
  `| ${label} | ${xs.length} | ${pct(xs.map((x) => x.wall), 0.5).toFixed(2)} / ${pct(xs.map((x) => x.wall), 0.99).toFixed(1)} ms | ${mean(xs.map((x) => x.cpu)).toFixed(2)} / ${pct(xs.map((x) => x.cpu), 0.5).toFixed(2)} / ${pct(xs.map((x) => x.cpu), 0.99).toFixed(2)} ms |`;

// a few requests on minds kept aside to settle the JIT (they are not measured)
const minds = [...w.minds].sort(() => rnd() - 0.5);
const spare = minds.splice(0, 5);
for (const m of spare) await preview(m, "player1");
const out: string[] = [];
const nStages = args.stages === "yes" ? Number(args.minds) : 0;
if (nStages) {
  const first = new Map<Stage, Sample[]>(STAGES.map((s) => [s, []]));
  const again = new Map<Stage, Sample[]>(STAGES.map((s) => [s, []]));
  for (const m of minds.splice(0, nStages)) {
    const p = `player${Math.floor(rnd() * w.players)}`;
    for (const [s, x] of await stages(m, p)) first.get(s)!.push(x);
    for (const [s, x] of await stages(m, `player${Math.floor(rnd() * w.players)}`)) again.get(s)!.push(x);
  }
  out.push("| stage: a mind's first sight / the same mind again | n | wall p50 / p99 | CPU mean / p50 / p99 |", "|---|---|---|---|");
  for (const s of STAGES) out.push(row(`${s}, first`, first.get(s)!), row(`${s}, again`, again.get(s)!));
}
log("stages done");
// whole previews: a mind's first since the start, then the same mind again (another player)
const firsts: Sample[] = [];
const agains: Sample[] = [];
for (const m of minds.splice(0, Number(args.previews))) {
  firsts.push(await preview(m, `player${Math.floor(rnd() * w.players)}`));
  agains.push(await preview(m, `player${Math.floor(rnd() * w.players)}`));
}
log("previews of minds done");
// a player with memories of the mind (player p has met minds p mod minds and 7p+3), first turn under enhanced retrieval;
// the mind is one already seen, so only the pair is new
updateSettings(ctx, w.projectId, { enhancedMemoryRetrieval: true });
const hot = w.minds.slice(0, 20);
for (const m of hot) await preview(m, "player0");
const enhanced: Sample[] = [];
const enhancedAgain: Sample[] = [];
const perBlock = Math.floor(w.players / w.minds.length);
for (let i = 0; i < Number(args.previews); i++) {
  const p = Math.floor(rnd() * perBlock) * w.minds.length + Math.floor(rnd() * hot.length);
  enhanced.push(await preview(w.minds[p % w.minds.length], `player${p}`));
  enhancedAgain.push(await preview(w.minds[p % w.minds.length], `player${p}`));
}
log("enhanced previews done");
// the memory read alone (enhanced retrieval), a pair's first and again, on pairs not used above
const groupFirst: Sample[] = [];
const groupAgain: Sample[] = [];
for (let i = 0; i < Number(args.previews); i++) {
  const p = Math.floor(rnd() * perBlock) * w.minds.length + Math.floor(rnd() * hot.length);
  const q = { projectId: w.projectId, mindId: w.minds[p % w.minds.length], playerId: `player${p}`, query: pick(LINES), enhanced: true, limit: 5 };
  groupFirst.push((await timed(() => retrieveMemories(ctx, q)))[1]);
  groupAgain.push((await timed(() => retrieveMemories(ctx, q)))[1]);
}
updateSettings(ctx, w.projectId, { enhancedMemoryRetrieval: false });
out.push("", "| request | n | wall p50 / p99 | CPU mean / p50 / p99 |", "|---|---|---|---|");
out.push(row("preview, a mind's first since the start", firsts), row("… the same mind again, another player", agains));
out.push(row("preview, a player's first turn with a seen mind, enhanced retrieval", enhanced), row("… the same pair again", enhancedAgain));
out.push(row("memories alone (enhanced retrieval), a pair's first read", groupFirst), row("… the same pair again", groupAgain));
// RSS as the run left it, and after a full collection: how much of it is garbage not collected yet (a run that
// allocates less collects less often, so the first figure alone can favour the code that allocates more)
const rssLeft = process.memoryUsage().rss;
Bun.gc(true);
await Bun.sleep(2000); // the allocator hands freed pages back to the system lazily
const rssCollected = process.memoryUsage().rss;
console.log(`\n${args.label}: ${w.chunks.toLocaleString("en")} chunks, ${w.minds.length} minds, ${w.players} players; ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}; RSS ${(rssLeft / 1e6).toFixed(0)} MB (${(rssCollected / 1e6).toFixed(0)} MB 2 s after a full collection)\n`);
console.log(`${warmupLine}\n${fillLine}\n${wordsLine}\n`);
console.log(out.join("\n"));
await app.stop();
rmSync(dir, { recursive: true, force: true });
