// World memories and event writes in a big world, in process (`app.handle`: the whole HTTP stack without a
// socket), each request with its wall time and the process's CPU (user + system, LanceDB's threads included).
// The world is one of bench/preview-overhead.ts (`--world`: 100,000 chunks, 1,000 minds, players with memories);
// `--seed` first adds to it `--events` world events (no player) each known by `--witnesses` minds, learned over
// the last 30 days with importance 1–10 (100,000 × 10: 1,000,000 world memories, ~1,000 a mind), written straight
// through the events feature's store functions in big transactions. Each measuring run works on a fresh copy.
// Measured, interleaved request by request:
//  - POST /v1/events, an event about a player one mind witnessed (what bench/scale.ts's load sends);
//  - POST /v1/events, a world event witnessed by 10 minds;
//  - interact-preview of a mind with its ~1,000 world memories, a player new to it (a first turn: up to 3 of them);
//  - rankWorldMemories alone (what the turn's gather step runs for them).
// Usage: bun bench/world-scale.ts --world <preview world> [--seed] [--events 100000] [--witnesses 10]
//        [--requests 100] [--label now] [--only <part of a kind's label>] [--append-window <ms>]
// Also reported: the memories table's LanceDB commits per 100 player events over the run, and the process's CPU over
// the whole loop per request (what the requests left running after their replies, an append window's commit, included).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { writeTx } from "../src/db/openDatabase.ts";
import { insertEvent } from "../src/events/eventStore.ts";
import { insertWorldMemory } from "../src/events/worldMemoryStore.ts";
import { rankWorldMemories } from "../src/events/worldMemories.ts";
import { bigWorld } from "./support/bigWorld.ts";

const { values: args } = parseArgs({
  options: {
    world: { type: "string" },
    seed: { type: "boolean", default: false },
    events: { type: "string", default: "100000" },
    witnesses: { type: "string", default: "10" },
    requests: { type: "string", default: "100" },
    label: { type: "string", default: "this code" },
    /** only the kinds whose label contains this (a profile of one) */
    only: { type: "string", default: "" },
    /** memoryAppendWindowMs (0: each event's memory vectors committed alone, as before the window) */
    "append-window": { type: "string" },
  },
});
if (!args.world) throw new Error("--world <folder> is required");
const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
const appendWindow = args["append-window"] === undefined ? undefined : Number(args["append-window"]);
const configFor = (dataDir: string, cwd: string) =>
  loadConfig({ cwd, env: {}, flags: { dataDir, modelsDir: join(cwd, "models"), contextSize: 4096, maxReplyTokens: 64, threads: 1, logLevel: "silent", vectorIndexMinChunks: 0, memoryAppendWindowMs: appendWindow } as never });
interface WorldMeta {
  projectId: string;
  adminToken: string;
  minds: string[];
  players: number;
  chunks: number;
  worldEvents?: number;
  worldMemories?: number;
}
const metaPath = join(args.world, "world.json");
let meta = JSON.parse(readFileSync(metaPath, "utf8")) as WorldMeta;
if (args.seed) await seed();
await measure();

async function seed(): Promise<void> {
  const app = await App.create(configFor(join(args.world!, "data"), args.world!), { logger: silentLogger, loadModel: false });
  try {
    const db = app.db;
    const nEvents = Number(args.events);
    const nWitnesses = Number(args.witnesses);
    const sentences = bigWorld({ chunks: 3000, queries: 1 }).chunks.map((c) => c.text.split(" ").slice(0, 14).join(" "));
    let x = 7;
    const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const now = Date.now();
    const t0 = performance.now();
    for (let from = 0; from < nEvents; from += 5000) {
      writeTx(db, () => {
        for (let e = from; e < Math.min(nEvents, from + 5000); e++) {
          const at = new Date(now - 86_400_000 - rnd() * 30 * 86_400_000).toISOString();
          const importance = 1 + Math.floor(rnd() * 10);
          const witnesses = Array.from({ length: nWitnesses }, (_, i) => meta.minds[(e * 7 + i * 101) % meta.minds.length]);
          const id = `evt_bench${e}`;
          insertEvent(db, { id, project_id: meta.projectId, type: ["trade", "fight", "rumour", "weather", "festival"][e % 5], description: sentences[e % sentences.length], location_id: null, player_id: null, importance, game_time: null, secret: 0, public: 0, witnesses: JSON.stringify(witnesses), created_at: at });
          for (const [i, mind] of witnesses.entries()) {
            // already spread: gossip's job would otherwise have a million memories to pass on
            insertWorldMemory(db, { id: `wmem_bench${e}_${i}`, project_id: meta.projectId, mind_id: mind, event_id: id, player_id: null, memory_id: null, importance, hop: 0, told_by: null, told_by_name: null, known_at: at, spread_at: at, created_at: at });
          }
        }
      });
    }
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    meta = { ...meta, worldEvents: nEvents, worldMemories: nEvents * nWitnesses };
    writeFileSync(metaPath, JSON.stringify(meta));
    log(`${nEvents} world events, ${nEvents * nWitnesses} world memories written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await app.stop();
  }
}

async function measure(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-world-"));
  cpSync(join(args.world!, "data"), join(dir, "data"), { recursive: true });
  const app = await App.create(configFor(join(dir, "data"), dir), { logger: silentLogger, loadModel: false });
  try {
    const ctx = app.ctx;
    await ctx.vectors.warm([meta.projectId]);
    await (await ctx.vectors.projectCache(ctx.vectors.activeGeneration(), meta.projectId)).indexIdle();
    const serverKey = createApiKey(ctx, { projectId: meta.projectId, type: "server" }).key;
    let s = 0x2545f491;
    const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const cpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const timed = async (req: Request, want: number) => {
      const c0 = cpu();
      const t0 = performance.now();
      const res = await app.handle(req);
      const body = await res.text();
      if (res.status !== want) throw new Error(`${req.url}: ${res.status} ${body.slice(0, 200)}`);
      return { wall: performance.now() - t0, cpu: cpu() - c0, body };
    };
    const post = (path: string, key: string, body: unknown) =>
      new Request(`http://local${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    let n = 0;
    const LINES = ["Tell me about the harbour and the lantern.", "Have you heard of the festival?", "What happened at the mill?", "Any rumour of a fight?"];
    const kinds = {
      "event about a player, one witness (bench/scale.ts's load)": () =>
        timed(post("/v1/events", serverKey, { type: "trade", description: `The player sold ${1 + (n % 40)} barrels of salt at the harbour`, playerId: `player${Math.floor(rnd() * meta.players)}`, witnesses: [pick(meta.minds)], importance: 3 }), 201),
      "world event, 10 witnesses": () =>
        timed(post("/v1/events", serverKey, { type: "rumour", description: `A ship with ${n} sails was seen off the north cape`, witnesses: Array.from({ length: 10 }, () => pick(meta.minds)).filter((m, i, a) => a.indexOf(m) === i), importance: 4 }), 201),
      "interact-preview, a mind with its world memories, a new player": async () => {
        const r = await timed(post(`/admin/v1/projects/${meta.projectId}/interact-preview`, meta.adminToken, { text: pick(LINES), entityMindId: pick(meta.minds), playerId: `newcomer${n}` }), 200);
        const body = JSON.parse(r.body) as { worldMemories?: unknown[]; prompt?: string };
        if (meta.worldMemories && !JSON.stringify(body).includes("You saw it")) throw new Error("a preview without world memories");
        return r;
      },
      "rankWorldMemories alone (150 + 150 candidates)": async () => {
        const c0 = cpu();
        const t0 = performance.now();
        rankWorldMemories(ctx, { projectId: meta.projectId, mindId: pick(meta.minds), query: pick(LINES), limit: 3 });
        return { wall: performance.now() - t0, cpu: cpu() - c0 };
      },
    };
    const chosen = Object.entries(kinds).filter(([k]) => k.includes(args.only!));
    for (const [, f] of chosen) for (let i = 0; i < 3; i++) await f(); // JIT and first loads
    const res = new Map(chosen.map(([k]) => [k, [] as { wall: number; cpu: number }[]]));
    const memoriesTable = ctx.vectors.activeGeneration().memories;
    const version0 = await memoriesTable.version();
    const loopCpu0 = cpu();
    for (let i = 0; i < Number(args.requests); i++) {
      for (const [k, f] of chosen) {
        n++;
        res.get(k)!.push(await f());
      }
    }
    await ctx.vectors.appends.flush();
    const loopCpu = cpu() - loopCpu0;
    const commits = (await memoriesTable.version()) - version0;
    const playerEvents = chosen.some(([k]) => k.startsWith("event about a player")) ? Number(args.requests) : 0;
    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const wm = app.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM world_memories").get()!.n;
    console.log(`\n${args.label}: ${meta.chunks.toLocaleString("en")} chunks, ${meta.minds.length} minds, ${meta.players.toLocaleString("en")} players, ${wm.toLocaleString("en")} world memories; ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}; RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB\n`);
    console.log("| request | n | wall p50 / p99 | CPU mean / p50 / p99 |");
    console.log("|---|---|---|---|");
    for (const [k, xs] of res) {
      const c = xs.map((x) => x.cpu);
      console.log(`| ${k} | ${xs.length} | ${pct(xs.map((x) => x.wall), 0.5).toFixed(1)} / ${pct(xs.map((x) => x.wall), 0.99).toFixed(1)} ms | ${mean(c).toFixed(1)} / ${pct(c, 0.5).toFixed(1)} / ${pct(c, 0.99).toFixed(1)} ms |`);
    }
    const requests = Number(args.requests) * chosen.length;
    console.log(`\nThe whole loop: ${(loopCpu / requests).toFixed(2)} ms of CPU a request (${requests} requests, the last window's commit included); memories table: ${commits} LanceDB commits${playerEvents ? `, ${((commits * 100) / playerEvents).toFixed(1)} per 100 player events` : ""} (append window ${appendWindow ?? "default"} ms).`);
  } finally {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
