/**
 * Hardening benchmark (issue 17): a black-box run against a real server process.
 *
 *   bun bench/hardening.ts                       # 3,000 fuzzed requests, 5 kill -9 trials, 1,000 interactions, a 30 MB entry
 *   bun bench/hardening.ts --requests 10000 --trials 10 --interactions 1000 --entry-mb 30 --reconcile-timeout-ms 8000
 *
 * 1. Fuzz: requests over every route the router holds (the admin API included) with hostile
 *    paths (dot segments, encoded slashes), hostile query values, malformed credentials and
 *    hostile bodies (deep nesting, 10 MB and declared 100 MB bodies, invalid UTF-8, other
 *    content types), mixed with valid interactions. Counts 5xx answers; samples the server's RSS.
 * 2. kill -9 trials: interactions in flight, SIGKILL, restart: open interaction reservations.
 * 3. Ledger reconciliation: concurrent interactions against a small balance with a short
 *    generation timeout; Σ ledger movements vs balance change vs Σ creditsUsed, in microcredits.
 * 4. The largest single scan entry (plain text) through the scan worker, in process: its RSS rise.
 *
 * The chat model is the suite's tiny random-weight GGUF: what is measured is the server around it.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, platform, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { ManualClock } from "../src/core/clock.ts";
import { getBalance, grantTopUp, setPlan } from "../src/credits/ledger.ts";
import { openDatabase } from "../src/db/openDatabase.ts";
import { createMind } from "../src/lore/minds/writeMinds.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { ensureTinyModel } from "../test/support/tinyGguf.ts";
import { tempDir, testConfig } from "../test/support/testApp.ts";
import { buildWorld, type World } from "../test/support/world.ts";
import { head, rawRequest } from "../test/hardening/rawHttp.ts";
import { bigLoreText } from "../test/hardening/bigEntry.ts";
import { job, runWorker, scanFixture, submitAndUpload } from "../test/scanner/service/scanSupport.ts";
import { prng } from "../test/support/prng.ts";

const { values: args } = parseArgs({
  options: {
    requests: { type: "string", default: "3000" },
    concurrency: { type: "string", default: "8" },
    trials: { type: "string", default: "5" },
    interactions: { type: "string", default: "1000" },
    "entry-mb": { type: "string", default: "30" },
    "reconcile-timeout-ms": { type: "string", default: "8000" },
  },
});
const ADMIN = "bench-hardening-admin";
const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const MB = 1024 * 1024;
const model = ensureTinyModel(undefined, { nCtx: 2048 });

// ------------------------------------------------------------------ the world and the server process

interface Setup {
  dir: string;
  w: World;
  talker: string;
  routes: Array<{ method: string; path: string }>;
}

/** A data dir with one world (written by an App that then stops), a talking mind, high rate limits. */
async function setup(topUpMicro: number): Promise<Setup> {
  const dir = tempDir("lorehold-bench-hardening-");
  const app = await App.create(testConfig(dir, { adminToken: ADMIN }), { logger: silentLogger, loadModel: false, clock: new ManualClock(new Date()) });
  const w = buildWorld(app.ctx as any, "Thornhaven");
  setRateLimits(app.ctx, w.projectId, { perPlayerPerMinute: 100_000, perProjectPerMinute: 100_000 });
  const talker = createMind(app.ctx, w.projectId, {
    key: "talker",
    entityName: "Talker",
    personality: "Never stops talking.",
    knowledgeTags: ["tavern"],
    responseConfig: { maxTokens: 40 },
  }).id;
  setPlan(app.ctx, w.teamId, 0);
  grantTopUp(app.ctx, w.teamId, topUpMicro);
  const routes = ((app.http as any).routes as Array<{ method: string; path: string }>).filter((r) => !r.path.startsWith("/swagger"));
  await app.stop();
  return { dir, w, talker, routes };
}

interface Server {
  proc: ReturnType<typeof Bun.spawn>;
  port: number;
}

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

async function startServer(s: Setup, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, MAIN, "serve"], {
    cwd: s.dir,
    env: {
      ...process.env,
      LOREHOLD_PORT: String(port),
      LOREHOLD_DATA_DIR: join(s.dir, "data"),
      LOREHOLD_MODELS_DIR: join(s.dir, "models"),
      LOREHOLD_MODEL: model,
      LOREHOLD_ADMIN_TOKEN: ADMIN,
      LOREHOLD_THREADS: "2",
      LOREHOLD_PARALLEL: "2",
      LOREHOLD_CONTEXT_SIZE: "2048",
      LOREHOLD_LOG_LEVEL: "error",
      ...env,
    },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}`);
    if (Date.now() > deadline) throw new Error("the server never became ready");
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false)) return { proc, port };
    await Bun.sleep(100);
  }
}

async function stopServer(s: Server): Promise<void> {
  s.proc.kill("SIGTERM");
  await s.proc.exited;
}

const statusMb = (pid: number, field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

const openReservations = (dir: string) => {
  const db = openDatabase(join(dir, "data", "lorehold.db"));
  try {
    return db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM credit_reservations WHERE status = 'open' AND purpose = 'interaction'").get()!.n;
  } finally {
    db.close();
  }
};

const interact = (port: number, s: Setup, playerId: string) =>
  fetch(`http://127.0.0.1:${port}/v1/npc/interact`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.w.keys.server}`, "content-type": "application/json" },
    body: JSON.stringify({ text: "Tell me about the town.", entityMindId: s.talker, playerId }),
  }).then(
    async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as any }),
    () => ({ status: 0, body: null }),
  );

// ------------------------------------------------------------------ 1. fuzz

const HOSTILE_IDS = ["..", "%2e%2e", "%2E%2E", ".", ".%2e", "a%2Fb", "%2F", "..%2F..", "a%5Cb", "%00", "%zz", "x".repeat(5000)];
const HOSTILE_QUERIES = ["offset=1e%2B308", "offset=1e+20", "offset=9007199254740993", "offset=-1", "limit=0", "limit=999999", "limit=abc", "offset=1.5", "status=NOPE", "tag=" + "t".repeat(200)];
const FIELDS = ["name", "content", "tags", "text", "entityMindId", "playerId", "files", "jobId", "extractionIds", "key", "type", "credits", "monthlyCredits", "knowledgeTags", "context", "conversationHistory", "color", "description", "sourceId", "targetId", "perPlayerPerMinute", "maxSessionLength"];

function fuzzRequest(s: Setup, rand: () => number): { head: string; body: string | Uint8Array | Iterable<Uint8Array>; kind: string } {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  // One request in ten is an interaction (the route the model makes expensive); the rest spread over every route.
  const r = rand() < 0.1 ? { method: "POST", path: "/v1/npc/interact" } : pick(s.routes);
  const ids = [...Object.values(s.w.minds), ...Object.values(s.w.documents), ...Object.values(s.w.tags), ...Object.values(s.w.locations), s.talker];
  let kind = "plain";
  let path = r.path.replace(":projectId", s.w.projectId).replace(/:(\w+)/g, () => (rand() < 0.5 ? pick(ids) : `missing_${Math.floor(rand() * 1e6)}`));
  if (rand() < 0.25) {
    const params = [...r.path.matchAll(/:(\w+)/g)];
    if (params.length) {
      kind = "hostile-path";
      path = r.path.replace(`:${pick(params)[1]}`, pick(HOSTILE_IDS)).replace(":projectId", s.w.projectId).replace(/:(\w+)/g, "x");
    } else if (rand() < 0.5) {
      kind = "hostile-path";
      path += pick(["/", "/..", "/%2e%2e", "//x"]);
    }
  }
  if (rand() < 0.2) path += `?${pick(HOSTILE_QUERIES)}`;
  const method = rand() < 0.9 ? r.method : pick(["GET", "POST", "PATCH", "PUT", "DELETE"]);
  const headers: Record<string, string> = {};
  const key = path.startsWith("/admin/") ? ADMIN : path.startsWith("/v1/npc") ? s.w.keys.server : s.w.keys.editor;
  const a = rand();
  if (a < 0.85) headers.authorization = `Bearer ${key}`;
  else if (a < 0.9) headers.authorization = `Bearer  ${key}`;
  else if (a < 0.95) headers.authorization = `Bearer wrong_${key}`;

  let body: string | Uint8Array | Iterable<Uint8Array> = "";
  const b = rand();
  const wantsBody = method !== "GET" && method !== "DELETE" ? b < 0.95 : b < 0.1;
  if (wantsBody) {
    headers["content-type"] = "application/json";
    const c = rand();
    if (r.path === "/v1/npc/interact" && c < 0.5) {
      kind = "interaction";
      body = JSON.stringify({ text: "Hello there.", entityMindId: s.talker, playerId: `fz${Math.floor(rand() * 20)}` });
    } else if (c < 0.45) {
      kind = "random-json";
      const o: Record<string, unknown> = {};
      for (let i = 0; i < 1 + rand() * 4; i++) o[pick(FIELDS)] = pick([null, true, -1, 1e308, "x", "", ["a"], { a: 1 }, "y".repeat(1000), Math.floor(rand() * 100)]);
      body = JSON.stringify(o);
    } else if (c < 0.6) {
      kind = "deep";
      const n = pick([100, 10_000, 100_000]);
      body = `{"${pick(FIELDS)}":${"[".repeat(n)}${"]".repeat(n)}}`;
    } else if (c < 0.65) {
      kind = "10MB";
      body = `{"${pick(FIELDS)}":"${"z".repeat(10 * MB)}"}`;
    } else if (c < 0.68) {
      kind = "declared-100MB";
      headers["content-length"] = String(100 * MB);
      body = "{";
    } else if (c < 0.72) {
      kind = "chunked-20MB";
      headers["transfer-encoding"] = "chunked";
      const chunk = new Uint8Array(256 * 1024).fill(0x61);
      body = (function* () {
        for (let i = 0; i < 80; i++) yield chunk;
      })();
    } else if (c < 0.8) {
      kind = "invalid-utf8";
      body = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]);
    } else if (c < 0.9) {
      kind = "content-type";
      headers["content-type"] = pick(["application/octet-stream", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded", "text/plain"]);
      body = '{"text":"hi"}';
    } else {
      kind = "malformed-json";
      body = pick(['{"a":', "[1,2", "nul", '{"a":1}}', "\u0000"]);
    }
    if (typeof body === "string") headers["content-length"] ??= String(Buffer.byteLength(body));
    else if (body instanceof Uint8Array) headers["content-length"] ??= String(body.length);
  }
  return { head: head(method, path, headers), body, kind };
}

async function fuzz(s: Setup, n: number, concurrency: number) {
  const server = await startServer(s, { LOREHOLD_GENERATION_TIMEOUT_MS: "20000" });
  // Idle: after start and one warm interaction (the model and the retrieval caches are loaded).
  await interact(server.port, s, "warm");
  await Bun.sleep(500);
  const idle = statusMb(server.proc.pid, "VmRSS");
  let peak = idle;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, statusMb(server.proc.pid, "VmRSS"));
    } catch {}
  }, 25);
  const rand = prng(1717);
  const byStatus: Record<string, number> = {};
  const byKind: Record<string, number> = {};
  const fivexx: string[] = [];
  const noAnswer: Record<string, number> = {};
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const req = fuzzRequest(s, rand);
        const reply = await rawRequest(server.port, req.head, req.body, { waitMs: 60_000 });
        const status = reply?.status ?? 0;
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        byKind[req.kind] = (byKind[req.kind] ?? 0) + 1;
        if (status === 0) noAnswer[req.kind] = (noAnswer[req.kind] ?? 0) + 1;
        if (status >= 500 && !(status === 503 && reply?.json?.error === "Generation failed")) fivexx.push(`${status} ${req.head.split("\r\n")[0]} (${req.kind}) ${reply?.body.slice(0, 120)}`);
      }
    }),
  );
  clearInterval(sampler);
  const hwm = statusMb(server.proc.pid, "VmHWM");
  const alive = await fetch(`http://127.0.0.1:${server.port}/healthz`).then((r) => r.status === 200, () => false);
  await stopServer(server);
  return { noAnswer, requests: n, seconds: Math.round((performance.now() - t0) / 100) / 10, byStatus, byKind, fivexx, idleMb: Math.round(idle), peakMb: Math.round(Math.max(peak, hwm)), alive };
}

// ------------------------------------------------------------------ 2. kill -9 trials

async function killTrials(s: Setup, trials: number) {
  const out: Array<{ openAtKill: number; openAfterRestart: number }> = [];
  for (let i = 0; i < trials; i++) {
    const server = await startServer(s);
    const asks = Array.from({ length: 8 }, (_, j) => interact(server.port, s, `k${i}-${j}`));
    const deadline = Date.now() + 60_000;
    while (openReservations(s.dir) < 3 && Date.now() < deadline) await Bun.sleep(5);
    server.proc.kill(9);
    await server.proc.exited;
    await Promise.all(asks);
    const openAtKill = openReservations(s.dir);
    const again = await startServer(s);
    const openAfterRestart = openReservations(s.dir);
    await stopServer(again);
    out.push({ openAtKill, openAfterRestart });
  }
  return out;
}

// ------------------------------------------------------------------ 3. ledger reconciliation

async function reconcile(s: Setup, n: number) {
  const server = await startServer(s, { LOREHOLD_GENERATION_TIMEOUT_MS: String(Number(args["reconcile-timeout-ms"])) });
  const db = openDatabase(join(s.dir, "data", "lorehold.db"));
  const since = db.query<{ id: number }, []>("SELECT COALESCE(MAX(id), 0) AS id FROM credit_ledger").get()!.id;
  const ctx = { db, clock: { now: () => new Date() } } as any;
  const before = getBalance(ctx, s.w.teamId).available;
  const replies = await Promise.all(Array.from({ length: n }, (_, i) => interact(server.port, s, `r${i % 50}`)));
  await stopServer(server);
  const after = getBalance(ctx, s.w.teamId).available;
  const ledger = db.query<{ s: number }, [string, number]>("SELECT COALESCE(SUM(amount_micro), 0) AS s FROM credit_ledger WHERE team_id = ? AND id > ?").get(s.w.teamId, since)!.s;
  const open = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM credit_reservations WHERE status = 'open'").get()!.n;
  db.close();
  const reported = replies.filter((r) => r.status === 200).reduce((m, r) => m + Math.round(r.body.metadata.creditsUsed * 1e6), 0);
  const outcomes: Record<string, number> = {};
  for (const r of replies) outcomes[`${r.status} ${r.body?.error ?? "ok"}`] = (outcomes[`${r.status} ${r.body?.error ?? "ok"}`] ?? 0) + 1;
  return { interactions: n, outcomes, ledgerSpentMicro: -ledger, balanceChangeMicro: before - after, reportedMicro: reported, differenceMicro: -ledger - reported, openAfter: open };
}

// ------------------------------------------------------------------ 4. one big scan entry

async function bigEntry(mb: number) {
  const f = await scanFixture();
  try {
    grantTopUp(f.t.app.ctx, f.w.teamId, 1e12);
    const { jobId } = await submitAndUpload(f, [{ path: "lore/big.txt", data: bigLoreText(mb) }]);
    Bun.gc(true);
    const idle = process.memoryUsage().rss / MB;
    writeFileSync("/proc/self/clear_refs", "5");
    const t0 = performance.now();
    await runWorker(f);
    const ms = performance.now() - t0;
    const peak = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
    const j = await job(f, jobId);
    return { entryMb: mb, status: j.body.status, extractions: j.body.extractions.length, seconds: Math.round(ms / 100) / 10, rssRiseMb: Math.round(peak - idle) };
  } finally {
    await f.close();
  }
}

// ------------------------------------------------------------------ run

const machine = `${cpus()[0]?.model ?? "?"} × ${availableParallelism()}, ${Math.round(totalmem() / MB)} MB RAM, ${platform()}, bun ${Bun.version}, load ${loadavg()[0].toFixed(1)}`;
console.log(JSON.stringify({ machine, model: "tiny random-weight GGUF (test/support/tinyGguf.ts), parallel 2, 2 threads" }));

const fuzzWorld = await setup(50_000_000);
const fz = await fuzz(fuzzWorld, Number(args.requests), Number(args.concurrency));
console.log(JSON.stringify({ fuzz: { ...fz, fivexx: fz.fivexx.slice(0, 10), fivexxCount: fz.fivexx.length, peakOverIdle: Math.round((fz.peakMb / fz.idleMb) * 100) / 100 } }));
rmSync(fuzzWorld.dir, { recursive: true, force: true });

const killWorld = await setup(50_000_000);
const kills = await killTrials(killWorld, Number(args.trials));
console.log(JSON.stringify({ kill9: { trials: kills.length, openAtKill: kills.map((k) => k.openAtKill), openAfterRestart: kills.reduce((n, k) => n + k.openAfterRestart, 0) } }));
rmSync(killWorld.dir, { recursive: true, force: true });

const ledgerWorld = await setup(40_000);
console.log(JSON.stringify({ reconciliation: await reconcile(ledgerWorld, Number(args.interactions)) }));
rmSync(ledgerWorld.dir, { recursive: true, force: true });

console.log(JSON.stringify({ bigScanEntry: await bigEntry(Number(args["entry-mb"])) }));
