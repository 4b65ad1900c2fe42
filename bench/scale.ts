// Where the next box begins: one Lorehold process carrying a big world under a mixed load over HTTP.
// The world: bench/support/bigProject.ts (`--documents` documents of ~60 words, one chunk each, 20 tags,
// `--minds` minds), indexed by the server's own indexer with the hashing embedder; `--players` players with
// memories (2 minds each, `--memories-per-player` in all), written straight to LanceDB as bench/scale-memories.ts
// does (the write path a turn takes is measured by the events in the load, not spent on the bulk load).
// Generation is remote: a real llama-server on a tiny random-weight model (1 thread), so a turn's generation
// costs the box little and what is measured is the control plane.
// The load (bench/support/mixedLoad.ts, its own process): steps of rising rate, each kind of non-generation
// request (interact-preview, lore reads, event writes, state writes) held at that rate at once, while
// `--turn-workers` players hold interact turns going. Reported: per kind, the highest rate whose p99 stayed
// ≤ 20 ms with no error and nothing shed; the server's RSS; disk per chunk and per player.
// Usage: bun bench/scale.ts [--documents 20000] [--minds 1000] [--players 10000] [--memories-per-player 10]
//                          [--rates 10,20,40,80,160] [--step 10] [--turn-workers 2] [--tokens 8]
//        --world <folder>: a copy of a world bench/preview-overhead.ts built (and bench/world-scale.ts seeded) instead
//        of building one, so two versions of the code meet the same world; the server starts on it as a restarted
//        box does (its scheduler's jobs running, its project's vectors loaded in the background)
//        --append-window <ms>: the event writes' memory append window (config memoryAppendWindowMs)
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { ensureAdminToken } from "../src/admin/adminToken.ts";
import { RATE_LIMIT_MAX, setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { settleRemoteBox, startRemoteBox } from "./support/remoteBox.ts";
import { bigProject } from "./support/bigProject.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { writePlayerMemories } from "./support/playerMemories.ts";
import { KINDS, type Asked, type LoadPlan, type SoloResult, type StepResult } from "./support/mixedLoad.ts";
import { readSettings } from "../src/projects/settings.ts";

const { values: args } = parseArgs({
  options: {
    documents: { type: "string", default: "20000" },
    minds: { type: "string", default: "1000" },
    players: { type: "string", default: "10000" },
    "memories-per-player": { type: "string", default: "10" },
    rates: { type: "string", default: "10,20,40,80,160" },
    step: { type: "string", default: "10" },
    "turn-workers": { type: "string", default: "2" },
    tokens: { type: "string", default: "8" },
    solo: { type: "string", default: "8" },
    settle: { type: "string", default: "8" },
    world: { type: "string" },
    /** memoryAppendWindowMs (0: each event's memory vectors committed alone, as before the window) */
    "append-window": { type: "string" },
  },
});
const given = args.world ? (JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; editor: string; minds: string[]; tags: string[]; players: number; chunks: number }) : null;
const nDocs = given ? given.chunks : Number(args.documents);
const nPlayers = given ? given.players : Number(args.players);
const perPlayer = Number(args["memories-per-player"]);
const BOUND_MS = 20;
const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

const sentences = bigWorld({ chunks: 3000, queries: 1 }).chunks.map((c) => c.text.split(" ").slice(0, 12).join(" "));
// every word the prompts use is one token of the tiny model (as common words are in a real model's vocab)
const words = [...new Set(sentences.join(" ").match(/[A-Za-z]+/g) ?? [])];
const box = await startRemoteBox({
  name: "scale",
  maxReplyTokens: Number(args.tokens),
  extraWords: words,
  world: args.world,
  flags: args["append-window"] === undefined ? {} : { memoryAppendWindowMs: Number(args["append-window"]) },
});
try {
  const { app, dir } = box;
  const dataDir = join(dir, "data");
  const ctx = app.ctx;

  // ---- the world
  let t0 = performance.now();
  let world: { projectId: string; editor: string; minds: string[]; tags: string[] };
  let writeS = NaN;
  let indexS = NaN;
  let memories: number;
  if (given) {
    world = given;
    memories = app.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memories").get()!.n;
    log(`the world of ${args.world}: ${given.chunks} chunks, ${memories} memories`);
  } else {
    world = bigProject(ctx, { minds: Number(args.minds), documents: nDocs, tags: 20 });
    writeS = (performance.now() - t0) / 1000;
    log(`${nDocs} documents and ${world.minds.length} minds written in ${writeS.toFixed(0)} s; indexing`);
    t0 = performance.now();
    for (;;) {
      const r = (await app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
      if (!r || r.indexed === 0) break;
    }
    indexS = (performance.now() - t0) / 1000;
    log(`indexed in ${indexS.toFixed(0)} s; writing memories`);
    // players' memories: each player has met 2 minds, perPlayer / 2 memories with each
    t0 = performance.now();
    memories = await writePlayerMemories(ctx, world.projectId, world.minds, nPlayers, perPlayer / 2, sentences);
    await ctx.vectors.optimizeNow();
    log(`${memories} memories of ${nPlayers} players written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const chunks = await ctx.vectors.countChunks(world.projectId);

  // ---- keys, limits, the server
  const serverKey = createApiKey(ctx, { projectId: world.projectId, type: "server" }).key;
  const adminToken = ensureAdminToken(app.db).adminToken;
  setRateLimits(ctx, world.projectId, { perPlayerPerMinute: RATE_LIMIT_MAX, perProjectPerMinute: RATE_LIMIT_MAX });
  app.listen();
  // a restarted box runs its scheduler (indexer, warm-ups, upkeep) while it serves; a freshly built world is measured without
  if (given) app.scheduler.start();
  const base = `http://127.0.0.1:${app.port}`;
  const documents: string[] = [];
  for (let offset = 0; offset < Math.min(nDocs, 2000); offset += 100) {
    const res = await fetch(`${base}/v1/lore/documents?limit=100&offset=${offset}`, { headers: { authorization: `Bearer ${world.editor}` } });
    documents.push(...((await res.json()) as { documents: { id: string }[] }).documents.map((d) => d.id));
  }
  // settle what a big project's first searches start in the background (the cache's load from LanceDB, its
  // snapshot file, the index training past vectorIndexMinChunks) and LanceDB's compaction after the bulk writes:
  // the load measures a running box, not its first minute
  // and, on a restarted box, the minds' shared-lore choices its scheduler makes ahead of their first turns and the
  // one-time copies a server makes on a world from before them
  t0 = performance.now();
  await settleRemoteBox(app, world.projectId, given !== null, log);
  log(`settled in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  Bun.gc(true);
  const rssBefore = process.memoryUsage().rss;
  // what the RSS is made of (bench/rss-account.ts has it stage by stage): anonymous memory and mapped files, and
  // the JS heap as the runtime counts it (this process built the world too, so its allocators served the bulk writes)
  const status = existsSync("/proc/self/status") ? readFileSync("/proc/self/status", "utf8") : "";
  const kb = (k: string) => Number(status.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0) * 1024;
  const inMb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;
  const split = `anonymous ${inMb(kb("RssAnon"))}, mapped files ${inMb(kb("RssFile"))}; JS heap ${inMb(process.memoryUsage().heapUsed)} used (array buffers ${inMb(process.memoryUsage().arrayBuffers)} of it)`;

  // ---- the load, from its own process
  const plan: LoadPlan = {
    base,
    projectId: world.projectId,
    serverKey,
    editorKey: world.editor,
    adminToken,
    minds: world.minds,
    documents,
    tags: world.tags,
    players: nPlayers,
    rates: args.rates!.split(",").map(Number),
    stepSeconds: Number(args.step),
    turnWorkers: Number(args["turn-workers"]),
    maxInFlight: 64,
    soloRate: 20,
    soloSeconds: Number(args.solo),
    settleSeconds: Number(args.settle),
  };
  const planPath = join(dir, "plan.json");
  writeFileSync(planPath, JSON.stringify(plan));
  let rssPeak = rssBefore;
  // the server's own CPU time (this process: the load runs in another), sampled to attribute it to each solo phase
  const cpuSamples: [number, number][] = [];
  const cpuNow = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    cpuSamples.push([Date.now(), cpuNow()]);
  }, 100);
  const loadAvgBefore = loadavg()[0];
  const driver = Bun.spawn([process.execPath, join(import.meta.dir, "support/mixedLoad.ts"), planPath], { stdout: "pipe", stderr: "inherit" });
  const outText = await new Response(driver.stdout).text();
  await driver.exited;
  clearInterval(sampler);
  const { solos, steps } = JSON.parse(outText.trim().split("\n").pop()!) as { solos: SoloResult[]; steps: StepResult[] };
  const cpuAt = (t: number) => {
    const after = cpuSamples.find(([at]) => at >= t) ?? cpuSamples.at(-1)!;
    return after[1];
  };
  const idle = solos.find((s) => s.kind === "idle")!;
  const idleRate = (cpuAt(idle.to) - cpuAt(idle.from)) / (idle.to - idle.from); // CPU ms per wall ms with nothing sent
  // CPU per request while the requests ran, and in the settle after the last reply (work the kind left behind)
  const cpuIn = (a: number, b: number, n: number) => Math.max(0, cpuAt(b) - cpuAt(a) - idleRate * (b - a)) / Math.max(1, n);
  const cpuPer = solos
    .filter((s) => s.kind !== "idle")
    .map((s) => ({ ...s, duringMs: cpuIn(s.from, s.repliedAt, s.ok + s.failed), afterMs: cpuIn(s.repliedAt, s.to, s.ok + s.failed) }))
    .map((s) => ({ ...s, cpuMs: s.duringMs + s.afterMs }));
  // what the previews and turns asked: a mind's first request since the load began, or a seen one; a player–mind
  // pair with memories (the world's players have met 2 minds of the 1,000) or a pair's first meeting
  const settings = readSettings(ctx, world.projectId);
  const hasMemories = app.db.query<{ n: number }, [string, string, string]>("SELECT COUNT(*) AS n FROM memories WHERE project_id = ? AND player_id = ? AND mind_id = ?");
  const describe = (asked: Asked[]) => {
    if (!asked.length) return "–";
    const first = asked.filter((a) => a.firstOfMind).length;
    const met = asked.filter((a) => hasMemories.get(world.projectId, a.player, a.mind)!.n > 0).length;
    return `${asked.length}: ${first} a mind's first since the start, ${asked.length - first} a seen mind; ${met} a pair with memories`;
  };

  // ---- disk
  const du = (p: string): number => {
    const s = statSync(p);
    return s.isDirectory() ? readdirSync(p).reduce((n, e) => n + du(join(p, e)), 0) : s.size;
  };
  const files = new Map<string, number>();
  const walk = (p: string, rel: string) => {
    for (const e of readdirSync(p)) {
      const full = join(p, e);
      const name = rel ? `${rel}/${e}` : e;
      if (statSync(full).isDirectory() && !/\.lance$/.test(e)) walk(full, name);
      else files.set(name, du(full));
    }
  };
  walk(dataDir, "");
  const sum = (re: RegExp) => [...files].filter(([k]) => re.test(k)).reduce((n, [, v]) => n + v, 0);
  const sqliteBytes = sum(/\.(db|sqlite)(-wal|-shm)?$/);
  const chunkBytes = sum(/chunks_g\d+\.lance$/);
  const memoryBytes = sum(/memories_g\d+\.lance$/);
  const totalBytes = du(dataDir);

  // ---- report
  const capacity = Object.fromEntries(
    KINDS.map((k) => {
      const ok = steps.filter((s) => s.kinds[k].p99 <= BOUND_MS && Object.keys(s.kinds[k].errors).length === 0 && s.kinds[k].shed === 0);
      return [k, ok.length ? Math.max(...ok.map((s) => s.rate)) : 0];
    }),
  ) as Record<(typeof KINDS)[number], number>;
  const allOk = steps.filter((s) => KINDS.every((k) => s.kinds[k].p99 <= BOUND_MS && Object.keys(s.kinds[k].errors).length === 0 && s.kinds[k].shed === 0));
  const mixed = allOk.length ? Math.max(...allOk.map((s) => s.rate)) : 0;
  const f = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "–");
  const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;
  console.log(`\n### A mixed load on one box — ${new Date().toISOString().slice(0, 10)}\n`);
  console.log(
    `Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), ${(totalmem() / 2 ** 30).toFixed(0)} GB, load ${loadAvgBefore.toFixed(1)} before the load (${loadavg()[0].toFixed(1)} after); Bun ${Bun.version}. ` +
      `World: one project, ${chunks.toLocaleString("en")} chunks (${nDocs.toLocaleString("en")} documents, 20 tags, hashing embedder; ${given ? `the world of ${args.world}, restarted on a copy` : `written in ${writeS.toFixed(0)} s, indexed in ${indexS.toFixed(0)} s = ${(chunks / indexS).toFixed(0)} chunks/s`}), ` +
      `${world.minds.length.toLocaleString("en")} minds, ${nPlayers.toLocaleString("en")} players with ${memories.toLocaleString("en")} memories. ` +
      `Generation: a llama-server (1 thread, 2 slots) on a tiny random-weight model, ${args.tokens}-token replies, ${plan.turnWorkers} players' turns back to back throughout. ` +
      `Each step: every kind below at the rate shown at once, open loop, ${plan.stepSeconds} s; the load from its own process on the same box.\n`,
  );
  console.log(
    `Each kind alone first (no turns; ${plan.soloRate} requests/s for ${plan.soloSeconds} s; turns one after another), then ${plan.settleSeconds} s with nothing sent, the server process's own CPU time per request (user + system, sampled every 100 ms, less the ${(idleRate * 100).toFixed(1)} % of a core it spent with nothing sent) while the requests ran and after the last reply (work the kind left behind: LanceDB's compaction after appends, jobs a write wakes), and in all: what one core carries of it, whatever else shares the box.\n`,
  );
  console.log("| kind | requests | wall p50 | server CPU per request: during + after = all | one core's worth |");
  console.log("|---|---|---|---|---|");
  for (const s of cpuPer) console.log(`| ${s.kind} | ${s.ok}${s.failed ? ` (${Object.entries(s.errors).map(([c, n]) => `${n}× ${c === "0" ? "no answer" : c}`).join(", ")})` : ""} | ${f(s.p50)} ms | ${s.duringMs.toFixed(2)} + ${s.afterMs.toFixed(2)} = ${s.cpuMs.toFixed(2)} ms | ${(1000 / s.cpuMs).toFixed(0)}/s |`);
  console.log(`\nWhat the previews and turns asked (project settings: long-term memory ${settings.longTermMemoryEnabled ? "on" : "off"}, enhanced retrieval ${settings.enhancedMemoryRetrieval ? "on" : "off"}; every request retrieves memories; a random player of ${nPlayers.toLocaleString("en")} and a random mind):\n`);
  console.log("| phase | previews | turns |");
  console.log("|---|---|---|");
  console.log(`| alone | ${describe(solos.find((s) => s.kind === "preview")!.asked)} | ${describe(solos.find((s) => s.kind === "turn")!.asked)} |`);
  for (const s of steps) console.log(`| ${s.rate}/s | ${describe(s.asked.preview)} | ${describe(s.asked.turn)} |`);
  console.log("\nThen all kinds at once, at rising rates, with the turns going:\n");
  console.log(`| rate per kind | ${KINDS.map((k) => `${k} p50 / p99`).join(" | ")} | interact turns (p50 / p99, done) |`);
  console.log(`|---|${KINDS.map(() => "---").join("|")}|---|`);
  for (const s of steps) {
    const cell = (k: (typeof KINDS)[number]) => {
      const r = s.kinds[k];
      const bad = Object.entries(r.errors).map(([c, n]) => `${n}× ${c}`).concat(r.shed ? [`${r.shed} shed`] : []);
      return `${f(r.p50)} / ${f(r.p99)} ms${bad.length ? ` (${bad.join(", ")})` : ""}`;
    };
    console.log(`| ${s.rate}/s | ${KINDS.map(cell).join(" | ")} | ${f(s.turns.p50)} / ${f(s.turns.p99)} ms, ${s.turns.ok}${s.turns.errors ? ` (${s.turns.errors} failed)` : ""} |`);
  }
  console.log(`\nCapacity at p99 ≤ ${BOUND_MS} ms (the highest step that held it, the others running at the same rate): ${KINDS.map((k) => `${k} ${capacity[k]}/s`).join(", ")}; all four at once ${mixed}/s each (${mixed * KINDS.length} requests/s of non-generation work).`);
  console.log(`Server RSS: ${mb(rssBefore)} after the world was built (${split}), ${mb(rssPeak)} peak under the load.`);
  console.log(
    `Disk: ${mb(totalBytes)} in all; LanceDB chunks ${mb(chunkBytes)} = ${(chunkBytes / chunks / 1024).toFixed(2)} KB/chunk; LanceDB memories ${mb(memoryBytes)} = ${(memoryBytes / memories / 1024).toFixed(2)} KB/memory, ${(memoryBytes / nPlayers / 1024).toFixed(1)} KB/player; SQLite ${mb(sqliteBytes)} (documents, minds, the load's events and state).`,
  );
} finally {
  await box.stop();
}
