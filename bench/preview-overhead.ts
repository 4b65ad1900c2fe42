// A turn's non-generation overhead in a big world: `interact-preview` (everything a turn does but generate) and
// lore reads, in process (`app.handle`, the whole HTTP stack without a socket), one request at a time, each with
// its wall time and the process's CPU time (user + system: LanceDB's threads included).
// The world (bench/support/bigProject.ts: `--documents` documents of ~60 words, one chunk each, 20 tags, `--minds`
// minds; `--players` players with 10 memories each, with 2 minds) is built once into `--world` and reused: each
// measuring run works on a fresh copy of it, so runs of two versions of the code meet the same world.
// Usage: bun bench/preview-overhead.ts --world /tmp/world-100k [--documents 100000] [--minds 1000] [--players 20000]
//        (builds the world when the folder is absent, then measures)  [--previews 300] [--lore 200] [--label now]
//        --from <world> with --world absent: a copy of that world, its players' memories topped up to --players
//        (1M memories: --players 100000, 10 memories each)
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { ensureAdminToken } from "../src/admin/adminToken.ts";
import { RATE_LIMIT_MAX, setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { bigProject } from "./support/bigProject.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { memoryRows, topUpPlayerMemories, writePlayerMemories } from "./support/playerMemories.ts";
import { loadMindProfile } from "../src/npc/mindProfile.ts";
import { sharedLoreFor, sharedLoreOutdated } from "../src/npc/sharedLore/sharedLore.ts";
import { mostUsedMinds } from "../src/npc/sharedLore/sharedLoreStore.ts";
import { updateSettings } from "../src/projects/settings.ts";
import { projectFilter } from "../src/vectors/filters.ts";

const { values: args } = parseArgs({
  options: {
    world: { type: "string" },
    from: { type: "string" },
    documents: { type: "string", default: "100000" },
    minds: { type: "string", default: "1000" },
    players: { type: "string", default: "20000" },
    previews: { type: "string", default: "300" },
    lore: { type: "string", default: "200" },
    label: { type: "string", default: "this code" },
    keep: { type: "boolean", default: false },
  },
});
if (!args.world) throw new Error("--world <folder> is required");
const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
// No approximate index: the hashing embedder's queries are sparse and scan exactly whatever the index (docs/scaling.md),
// and training it again at each run's cold start would cost a minute of CPU measuring nothing.
const configFor = (dataDir: string, cwd: string) =>
  loadConfig({ cwd, env: {}, flags: { dataDir, modelsDir: join(cwd, "models"), contextSize: 4096, maxReplyTokens: 64, threads: 1, logLevel: "silent", vectorIndexMinChunks: 0 } as never });

interface WorldMeta {
  projectId: string;
  editor: string;
  adminToken: string;
  minds: string[];
  tags: string[];
  documents: string[];
  players: number;
  chunks: number;
}

const metaPath = join(args.world, "world.json");
if (!existsSync(metaPath) && args.from) await topUpWorld(args.from);
else if (!existsSync(metaPath)) await buildWorld();
const meta = JSON.parse(readFileSync(metaPath, "utf8")) as WorldMeta;
await measure(meta);

async function buildWorld(): Promise<void> {
  const dataDir = join(args.world!, "data");
  const app = await App.create(configFor(dataDir, args.world!), { logger: silentLogger, loadModel: false });
  try {
    const ctx = app.ctx;
    let t0 = performance.now();
    const world = bigProject(ctx, { minds: Number(args.minds), documents: Number(args.documents), tags: 20 });
    log(`${args.documents} documents, ${world.minds.length} minds written in ${((performance.now() - t0) / 1000).toFixed(0)} s; indexing`);
    t0 = performance.now();
    for (;;) {
      const r = (await app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
      if (!r || r.indexed === 0) break;
    }
    const chunks = await ctx.vectors.countChunks(world.projectId);
    log(`${chunks} chunks indexed in ${((performance.now() - t0) / 1000).toFixed(0)} s; memories`);
    // players' memories as bench/scale.ts writes them: each player has met 2 minds, 5 memories with each
    const sentences = bigWorld({ chunks: 3000, queries: 1 }).chunks.map((c) => c.text.split(" ").slice(0, 12).join(" "));
    const nPlayers = Number(args.players);
    await writePlayerMemories(ctx, world.projectId, world.minds, nPlayers, 5, sentences);
    await ctx.vectors.warm([world.projectId]);
    await ctx.vectors.snapshotsIdle();
    await (await ctx.vectors.projectCache(ctx.vectors.activeGeneration(), world.projectId)).indexIdle();
    await ctx.vectors.optimizeNow();
    setRateLimits(ctx, world.projectId, { perPlayerPerMinute: RATE_LIMIT_MAX, perProjectPerMinute: RATE_LIMIT_MAX });
    const documents = app.db.query<{ id: string }, [string]>("SELECT id FROM documents WHERE project_id = ? ORDER BY rowid LIMIT 2000").all(world.projectId).map((r) => r.id);
    const m: WorldMeta = { projectId: world.projectId, editor: world.editor, adminToken: ensureAdminToken(app.db).adminToken, minds: world.minds, tags: world.tags, documents, players: nPlayers, chunks };
    writeFileSync(metaPath, JSON.stringify(m));
    log("world built");
  } finally {
    await app.stop();
  }
}

async function topUpWorld(from: string): Promise<void> {
  const old = JSON.parse(readFileSync(join(from, "world.json"), "utf8")) as WorldMeta;
  const dataDir = join(args.world!, "data");
  cpSync(join(from, "data"), dataDir, { recursive: true });
  const app = await App.create(configFor(dataDir, args.world!), { logger: silentLogger, loadModel: false });
  try {
    const ctx = app.ctx;
    const t0 = performance.now();
    const sentences = bigWorld({ chunks: 3000, queries: 1 }).chunks.map((c) => c.text.split(" ").slice(0, 12).join(" "));
    const nPlayers = Number(args.players);
    const { oldRows, written } = await topUpPlayerMemories(ctx, old.projectId, old.minds, old.players, nPlayers, 5, sentences);
    log(`${oldRows} SQLite rows of old memories, ${written} memories of players ${old.players}–${nPlayers - 1} written in ${((performance.now() - t0) / 1000).toFixed(0)} s; optimizing`);
    await ctx.vectors.optimizeNow();
    const lance = await ctx.vectors.activeGeneration().memories.countRows(projectFilter(old.projectId));
    log(`memories: ${memoryRows(ctx, old.projectId)} in SQLite, ${lance} in LanceDB (${nPlayers} players × 10)`);
    writeFileSync(metaPath, JSON.stringify({ ...old, players: nPlayers }));
    log("world topped up");
  } finally {
    await app.stop();
  }
}

async function measure(w: WorldMeta): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-preview-"));
  cpSync(join(args.world!, "data"), join(dir, "data"), { recursive: true });
  const app = await App.create(configFor(join(dir, "data"), dir), { logger: silentLogger, loadModel: false });
  try {
    const ctx = app.ctx;
    await ctx.vectors.warm([w.projectId]);
    await (await ctx.vectors.projectCache(ctx.vectors.activeGeneration(), w.projectId)).indexIdle();
    let seed = 0x9e3779b9;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const LINES = ["Tell me about the harbour and the lantern.", "Who guards the north gate at night?", "What do you know of the salt debt?", "Have you seen the ferryman?", "What happened at the mill?"];
    const cpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const timed = async (req: Request) => {
      const c0 = cpu();
      const t0 = performance.now();
      const res = await app.handle(req);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${req.url}: ${res.status}`);
      return { wall: performance.now() - t0, cpu: cpu() - c0 };
    };
    const preview = (mind: string) =>
      timed(
        new Request(`http://local/admin/v1/projects/${w.projectId}/interact-preview`, {
          method: "POST",
          headers: { authorization: `Bearer ${w.adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ text: pick(LINES), entityMindId: mind, playerId: `player${Math.floor(rnd() * w.players)}`, memory: { retrieve: true } }),
        }),
      );
    const lore = (n: number) =>
      timed(
        new Request(
          n % 2 === 0 ? `http://local/v1/lore/documents/${pick(w.documents)}` : `http://local/v1/lore/documents?tag=${encodeURIComponent(pick(w.tags))}&limit=20&offset=${Math.floor(rnd() * 200)}`,
          { headers: { authorization: `Bearer ${w.editor}` } },
        ),
      );
    // a few requests to settle the JIT and the caches' first load
    for (let i = 0; i < 5; i++) await lore(i);
    const rows: { label: string; xs: { wall: number; cpu: number }[] }[] = [];
    const n = Number(args.previews);
    // as the mixed load sends them: a random mind of all of them (most previews are a mind's first at 1,000 minds)
    const seen = new Set<string>();
    const first: { wall: number; cpu: number }[] = [];
    const again: { wall: number; cpu: number }[] = [];
    const all: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < n; i++) {
      const mind = pick(w.minds);
      const r = await preview(mind);
      (seen.has(mind) ? again : first).push(r);
      all.push(r);
      seen.add(mind);
    }
    rows.push({ label: "preview, a random mind of all (as the mixed load)", xs: all }, { label: "… a mind's first preview", xs: first });
    // the same 20 minds over and over: the ordinary case of a running game (a mind talks to many players)
    const hot = w.minds.slice(0, 20);
    for (const m of hot) await preview(m);
    const warm: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < n; i++) warm.push(await preview(pick(hot)));
    rows.push({ label: "preview, 20 minds already seen", xs: warm });
    // a player with memories of the mind (player p has met minds p and 7p+3, 5 memories each), in the default
    // retrieval (SQLite rows by importance and recency) and the enhanced one (their vectors too: the pair's first
    // turn reads its group from LanceDB, the next ranks it in memory); the mind one of the 20 already seen
    let memoriesSeen = 0;
    const withMemories = async (p: number) => {
      const c0 = cpu();
      const t0 = performance.now();
      const res = await app.handle(
        new Request(`http://local/admin/v1/projects/${w.projectId}/interact-preview`, {
          method: "POST",
          headers: { authorization: `Bearer ${w.adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ text: pick(LINES), entityMindId: w.minds[p % w.minds.length], playerId: `player${p}`, memory: { retrieve: true } }),
        }),
      );
      const body = (await res.json()) as { memories?: string[] };
      if (res.status !== 200) throw new Error(`preview with memories: ${res.status}`);
      memoriesSeen += body.memories?.length ?? 0;
      return { wall: performance.now() - t0, cpu: cpu() - c0 };
    };
    const perBlock = Math.floor(w.players / w.minds.length);
    for (const enhanced of [false, true]) {
      updateSettings(ctx, w.projectId, { enhancedMemoryRetrieval: enhanced });
      const met: { wall: number; cpu: number }[] = [];
      const metAgain: { wall: number; cpu: number }[] = [];
      for (let i = 0; i < n; i++) {
        // players whose first mind is one of the 20 seen: the mind's own first-preview cost is not in these figures
        const p = Math.floor(rnd() * perBlock) * w.minds.length + Math.floor(rnd() * hot.length);
        met.push(await withMemories(p));
        metAgain.push(await withMemories(p));
      }
      const mode = enhanced ? "enhanced retrieval" : "default retrieval";
      rows.push({ label: `preview, a player with memories of the mind (${mode}), their first turn with it`, xs: met }, { label: "… the same player and mind again", xs: metAgain });
    }
    updateSettings(ctx, w.projectId, { enhancedMemoryRetrieval: false });
    // each preview must have found the pair's memories (5 are kept a turn): a world without them measures nothing
    if (memoriesSeen < 4 * n * 4) throw new Error(`only ${memoriesSeen} memories in ${4 * n} previews with memories`);
    const reads: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < Number(args.lore); i++) reads.push(await lore(i));
    rows.push({ label: "lore read (half by id, half a tag page of 20)", xs: reads });
    // what the mind-warm job (every 5 s, with a model) reads for each of the 32 most used minds besides the model:
    // whether its shared lore is outdated, and its shared lore (src/npc/warmMinds.ts); 20 ticks after a first
    const warm32 = mostUsedMinds(ctx.db, 32);
    const tickOnce = () => {
      const c0 = cpu();
      const t0 = performance.now();
      for (const m of warm32) {
        const mind = loadMindProfile(ctx, m.projectId, m.id);
        sharedLoreOutdated(ctx, m.projectId, mind);
        sharedLoreFor(ctx, m.projectId, mind, mind.knowledgeTags);
      }
      return { wall: performance.now() - t0, cpu: cpu() - c0 };
    };
    tickOnce();
    const ticks: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < 20; i++) ticks.push(tickOnce());
    rows.push({ label: "the mind-warm job's lore checks, one tick (32 minds)", xs: ticks });
    // the minds list (unpaginated by the spec): its first request after the start, then the same list again
    const minds = () => timed(new Request("http://local/v1/lore/minds", { headers: { authorization: `Bearer ${w.editor}` } }));
    rows.push({ label: "GET /v1/lore/minds, the first after the start", xs: [await minds()] });
    const lists: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < 5; i++) lists.push(await minds());
    rows.push({ label: "GET /v1/lore/minds, the next 5", xs: lists });

    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`\n${args.label}: ${w.chunks.toLocaleString("en")} chunks, ${w.minds.length} minds, ${w.players} players; ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}; RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB\n`);
    console.log("| request | n | wall p50 / p99 | CPU mean / p50 |");
    console.log("|---|---|---|---|");
    for (const r of rows) {
      const wall = r.xs.map((x) => x.wall);
      const c = r.xs.map((x) => x.cpu);
      console.log(`| ${r.label} | ${r.xs.length} | ${pct(wall, 0.5).toFixed(1)} / ${pct(wall, 0.99).toFixed(1)} ms | ${mean(c).toFixed(1)} / ${pct(c, 0.5).toFixed(1)} ms |`);
    }
  } finally {
    await app.stop();
    if (!args.keep) rmSync(dir, { recursive: true, force: true });
  }
}
