/**
 * Events: what recording the world costs and what recalling it costs a turn, in one run.
 *
 *   bun bench/events.ts [--events 300] [--world 100000] [--gossip 10000] [--turns 300]
 *
 *  - ingest: POST /v1/events through the HTTP app (validation, auth, rate limit, one SQLite transaction),
 *    each event witnessed by location by the 50 minds of a square: events/s single and in batches of 100;
 *    an event about a player (50 player memories + their vectors) for comparison;
 *  - a turn's gather step (POST interact-preview: the production prompt path) p50/p99 alone and while events
 *    are ingested concurrently (the ratio is the ingest's effect on a turn's overhead);
 *  - world-memory retrieval (rankWorldMemories, what each turn runs) p50/p99 at `--world` world memories in the
 *    project (spread over 50 minds; and all of them on one mind, the worst case);
 *  - the gossip job on `--gossip` unspread world memories (a village of 50 minds, each with 4 relationships).
 */
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { rmSync } from "node:fs";
import { App } from "../src/app/App.ts";
import { ManualClock } from "../src/core/clock.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { createProject } from "../src/projects/projectService.ts";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { createTag } from "../src/lore/tags/writeTags.ts";
import { createLocation } from "../src/lore/locations/writeLocations.ts";
import { createMind } from "../src/lore/minds/writeMinds.ts";
import { createRelationship } from "../src/lore/relationships/writeRelationships.ts";
import { setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { ensureAdminToken } from "../src/admin/adminToken.ts";
import { writeTx } from "../src/db/openDatabase.ts";
import { insertEvent } from "../src/events/eventStore.ts";
import { insertWorldMemory } from "../src/events/worldMemoryStore.ts";
import { rankWorldMemories } from "../src/events/worldMemories.ts";
import { spreadGossip } from "../src/events/gossip.ts";
import { tempDir, testConfig } from "../test/support/testApp.ts";

const { values: args } = parseArgs({
  options: { events: { type: "string", default: "300" }, world: { type: "string", default: "100000" }, gossip: { type: "string", default: "10000" }, turns: { type: "string", default: "300" } },
});
const EVENTS = Number(args.events);
const WORLD = Number(args.world);
const GOSSIP = Number(args.gossip);
const TURNS = Number(args.turns);
const MINDS = 50;

let seed = 11;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const WORDS = "bridge mill fire thief guard baker harbour storm wolf caravan gold debt wedding feast duel omen ship plague rumour letter".split(" ");
const sentence = () => Array.from({ length: 10 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");

const dir = tempDir("lorehold-bench-events-");
const clock = new ManualClock(new Date("2026-03-01T08:00:00.000Z"));
const app = await App.create(testConfig(dir, { embeddingModel: "hashing", threads: 1 }), { clock, logger: silentLogger, loadModel: false, embedder: new HashingEmbedder() });
const admin = ensureAdminToken(app.db).adminToken;

function village(name: string) {
  const ctx = app.ctx;
  const p = createProject(ctx, { name });
  setRateLimits(ctx, p.id, { perProjectPerMinute: 100_000, perPlayerPerMinute: 100_000 });
  const key = createApiKey(ctx, { projectId: p.id, type: "server" }).key;
  createTag(ctx, p.id, { name: "village" });
  const square = createLocation(ctx, p.id, { key: "square", name: "Square" }).id;
  const minds = Array.from({ length: MINDS }, (_, i) => createMind(ctx, p.id, { key: `m${i}`, entityName: `Villager ${i}`, personality: "A villager.", locationId: square, knowledgeTags: ["village"] }).id);
  // each mind talks to its 2 neighbours on a ring and 2 random others
  for (let i = 0; i < MINDS; i++) {
    createRelationship(ctx, p.id, { fromEntityId: minds[i], toEntityId: minds[(i + 1) % MINDS], type: "FRIEND" });
    const j = (i + 2 + Math.floor(rnd() * (MINDS - 3))) % MINDS;
    if (j !== i) createRelationship(ctx, p.id, { fromEntityId: minds[i], toEntityId: minds[j], type: "NEUTRAL" });
  }
  return { projectId: p.id, key, square, minds };
}

const post = (key: string, body: unknown) =>
  app.handle(new Request("http://localhost/v1/events", { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }));

// ---- ingest
const v = village("Ingest");
const ev = (extra: Record<string, unknown> = {}) => ({ type: "news", description: sentence(), witnesses: "location", location: v.square, importance: 1 + Math.floor(rnd() * 10), ...extra });
let t0 = performance.now();
for (let i = 0; i < EVENTS; i++) if ((await post(v.key, ev())).status !== 201) throw new Error("ingest failed");
const singlePerS = EVENTS / ((performance.now() - t0) / 1000);
t0 = performance.now();
for (let i = 0; i < EVENTS; i += 100) if ((await post(v.key, { events: Array.from({ length: Math.min(100, EVENTS - i) }, () => ev()) })).status !== 201) throw new Error("batch failed");
const batchPerS = EVENTS / ((performance.now() - t0) / 1000);
const playerEvents = Math.max(20, Math.floor(EVENTS / 10));
t0 = performance.now();
for (let i = 0; i < playerEvents; i++) if ((await post(v.key, ev({ playerId: `p${i % 7}` }))).status !== 201) throw new Error("player ingest failed");
const playerPerS = playerEvents / ((performance.now() - t0) / 1000);

// ---- a turn's gather step, alone and with ingest running beside it
const preview = async () => {
  const s = performance.now();
  const r = await app.handle(
    new Request(`http://localhost/admin/v1/projects/${v.projectId}/interact-preview`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ text: `What about the ${WORDS[Math.floor(rnd() * WORDS.length)]}?`, entityMindId: v.minds[Math.floor(rnd() * MINDS)], playerId: "bench" }),
    }),
  );
  if (r.status !== 200) throw new Error(`preview ${r.status}`);
  await r.text();
  return performance.now() - s;
};
const alone: number[] = [];
for (let i = 0; i < TURNS; i++) alone.push(await preview());
const withIngest: number[] = [];
let ingesting = true;
let ingested = 0;
const ingestLoop = (async () => {
  while (ingesting) {
    await post(v.key, ev());
    ingested++;
  }
})();
for (let i = 0; i < TURNS; i++) withIngest.push(await preview());
ingesting = false;
await ingestLoop;

// ---- world-memory retrieval at WORLD memories in one project
const big = village("Big");
const oneMind = village("OneMind");
function seedWorld(projectId: string, minds: string[], n: number) {
  const at = clock.now().getTime();
  const PER_TX = 5000;
  for (let done = 0; done < n; done += PER_TX) {
    writeTx(app.db, () => {
      for (let i = done; i < Math.min(n, done + PER_TX); i++) {
        const eventId = `evt_b${projectId}_${i}`;
        const created = new Date(at - Math.floor(rnd() * 30 * 86_400_000)).toISOString();
        insertEvent(app.db, { id: eventId, project_id: projectId, type: "news", description: sentence(), location_id: null, player_id: null, importance: 1 + (i % 10), game_time: null, secret: 0, public: 0, witnesses: "[]", created_at: created });
        insertWorldMemory(app.db, { id: `wm_${projectId}_${i}`, project_id: projectId, mind_id: minds[i % minds.length], event_id: eventId, player_id: null, memory_id: null, importance: 1 + (i % 10), hop: 0, told_by: null, told_by_name: null, known_at: created, spread_at: "x", created_at: created });
      }
    });
  }
}
t0 = performance.now();
seedWorld(big.projectId, big.minds, WORLD);
seedWorld(oneMind.projectId, [oneMind.minds[0]], WORLD);
const seedS = (performance.now() - t0) / 1000;
/** Wall time and this process's CPU time (user + system) per retrieval: the CPU time is what a retrieval costs, without the waits of a shared machine. */
const rank = (projectId: string, minds: string[]) => {
  const xs: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const c = process.cpuUsage();
    const s = performance.now();
    rankWorldMemories(app.ctx, { projectId, mindId: minds[i % minds.length], query: `tell me about the ${WORDS[i % WORDS.length]} and the ${WORDS[(i * 7) % WORDS.length]}`, limit: 3 });
    xs.push(performance.now() - s);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  return Object.assign(xs, { cpu });
};
const spread = rank(big.projectId, big.minds);
const worst = rank(oneMind.projectId, [oneMind.minds[0]]);

// ---- gossip on GOSSIP unspread world memories
const g = village("Gossip");
writeTx(app.db, () => {
  const at = clock.now().toISOString();
  for (let i = 0; i < GOSSIP; i++) {
    const eventId = `evt_g_${i}`;
    insertEvent(app.db, { id: eventId, project_id: g.projectId, type: "news", description: sentence(), location_id: null, player_id: null, importance: 4 + (i % 7), game_time: null, secret: 0, public: 0, witnesses: "[]", created_at: at });
    insertWorldMemory(app.db, { id: `wm_g_${i}`, project_id: g.projectId, mind_id: g.minds[i % MINDS], event_id: eventId, player_id: null, memory_id: null, importance: 4 + (i % 7), hop: 0, told_by: null, told_by_name: null, known_at: at, spread_at: null, created_at: at });
  }
});
t0 = performance.now();
const gc0 = process.cpuUsage();
const firstHop = await spreadGossip(app.ctx);
const gossipS = (performance.now() - t0) / 1000;
const gcpu = process.cpuUsage(gc0);
const gossipCpuS = (gcpu.user + gcpu.system) / 1e6;

const fmt = (x: number) => x.toFixed(2);
console.log(`## Events benchmark\n`);
console.log(`Machine: ${cpus()[0]?.model ?? "unknown"} (${availableParallelism()} cores), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}; SQLite WAL; hashing embedder; no model (nothing generated).\n`);
console.log(`| measure | figure |`);
console.log(`|---|---|`);
console.log(`| ingest, one event a request, 50 witnesses by location | ${singlePerS.toFixed(0)} events/s (${(singlePerS * MINDS).toFixed(0)} world memories/s) |`);
console.log(`| ingest, batches of 100, 50 witnesses by location | ${batchPerS.toFixed(0)} events/s (${(batchPerS / singlePerS).toFixed(2)}× single) |`);
console.log(`| ingest, about a player (50 player memories + vectors) | ${playerPerS.toFixed(0)} events/s (${(playerPerS / singlePerS).toFixed(2)}× world) |`);
console.log(`| a turn's gather (interact-preview) p50 / p99, alone | ${fmt(pct(alone, 0.5))} / ${fmt(pct(alone, 0.99))} ms |`);
console.log(`| the same while events are ingested beside it (${ingested} events) | ${fmt(pct(withIngest, 0.5))} / ${fmt(pct(withIngest, 0.99))} ms (p99 ${(pct(withIngest, 0.99) / pct(alone, 0.99)).toFixed(2)}× alone) |`);
console.log(`| world-memory retrieval, ${WORLD.toLocaleString("en")} in the project over 50 minds, p50 / p99 | ${fmt(pct(spread, 0.5))} / ${fmt(pct(spread, 0.99))} ms (CPU ${fmt(pct(spread.cpu, 0.5))} / ${fmt(pct(spread.cpu, 0.99))} ms) |`);
console.log(`| the same, all ${WORLD.toLocaleString("en")} on one mind (worst case), p50 / p99 | ${fmt(pct(worst, 0.5))} / ${fmt(pct(worst, 0.99))} ms (CPU ${fmt(pct(worst.cpu, 0.5))} / ${fmt(pct(worst.cpu, 0.99))} ms) |`);
console.log(`| gossip job, ${GOSSIP.toLocaleString("en")} unspread world memories (one tick) | ${gossipS.toFixed(2)} s (CPU ${gossipCpuS.toFixed(2)} s; ${((gossipCpuS * 10_000) / GOSSIP).toFixed(2)} CPU s per 10,000; ${firstHop.told} hearers told) |`);
console.log(`\n(seeding ${(2 * WORLD).toLocaleString("en")} world memories took ${seedS.toFixed(1)} s; events ${EVENTS}, turns ${TURNS})`);

await app.stop();
rmSync(dir, { recursive: true, force: true });
