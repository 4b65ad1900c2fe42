// What a preview costs over HTTP beyond what the same request costs in process, on one server: the box of
// bench/http-cost.ts (a copy of `--world`, its scheduler running, a remote llama-server on a tiny model), the same
// kind of requests sent two ways, alternated in blocks (A B B A …) so both meet the same load and the same server:
// over the socket from another process (bench/support/previewDriver.ts, one request at a time) and in process
// (`app.handle`, what bench/first-turn.ts measures). For each block, the server process's CPU by thread from
// /proc/self/task/*/schedstat (nanoseconds: the JS thread "bun", LanceDB's, the GC's, Bun's HTTP client); pass 1 is
// a mind's first request since the start, pass 2 the very same requests again (every mind seen).
// `--check N` first sends N requests both ways and compares the replies byte for byte (a preview is deterministic on
// a world whose state the requests do not change). `--arms http` (or `process`) sends one way only, for a profile:
// `bun --cpu-prof bench/http-preview.ts … --arms http`, with bench/support/profileStages.ts to read it.
// `--variant <name>` compares a change the server can switch between requests (VARIANTS below) as two arms of each
// transport, old and new, alternated the same way, their replies compared byte for byte first.
// Usage: bun bench/http-preview.ts --world <folder> [--requests 160] [--block 10] [--gap-ms 20] [--check 20]
//        [--arms http,process,nopool] [--variant query-cache]
import { readFileSync, readdirSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureAdminToken } from "../src/admin/adminToken.ts";
import { RATE_LIMIT_MAX, setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { settleRemoteBox, startRemoteBox } from "./support/remoteBox.ts";
import type { DriverAnswer, DriverAsk } from "./support/previewDriver.ts";

const { values: args } = parseArgs({
  options: {
    world: { type: "string" },
    requests: { type: "string", default: "160" },
    block: { type: "string", default: "10" },
    "gap-ms": { type: "string", default: "20" },
    check: { type: "string", default: "20" },
    arms: { type: "string", default: "http,process" },
    seed: { type: "string", default: "2654435769" },
    /** a change toggled in one server, its arms "<transport>:old" and "<transport>:new" (see VARIANTS) */
    variant: { type: "string" },
    /** after the passes: this many seconds with nothing sent, the idle server's CPU by thread a second */
    "idle-s": { type: "string", default: "0" },
  },
});
if (!args.world) throw new Error("--world <folder> is required");
const world = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; minds: string[]; players: number };
const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
type Transport = "http" | "process" | "nopool";
/** an arm: a transport, with a variant's side after a colon when --variant is given */
type Arm = Transport | `${Transport}:${"old" | "new"}`;
const arms = args.arms.split(",").flatMap((a) => (args.variant ? [`${a}:old`, `${a}:new`] : [a])) as Arm[];
const nReq = Number(args.requests);
const block = Number(args.block);
const gapMs = Number(args["gap-ms"]);

/** Each thread's CPU so far (ns, from schedstat), by thread id, with its name. */
function threads(): Map<string, { name: string; ns: number }> {
  const out = new Map<string, { name: string; ns: number }>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      out.set(tid, { name: readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim(), ns });
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out;
}
/** The JS thread's user and system CPU (ms, 10 ms ticks) and the process's minor page faults so far. */
function faultsAndSys(): { user: number; sys: number; minflt: number } {
  const f = (stat: string) => stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const own = f(readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8"));
  const proc = f(readFileSync("/proc/self/stat", "utf8"));
  return { user: Number(own[11]) * 10, sys: Number(own[12]) * 10, minflt: Number(proc[7]) };
}
function byName(before: Map<string, { name: string; ns: number }>, after: Map<string, { name: string; ns: number }>, into: Map<string, number>): void {
  for (const [tid, t] of after) into.set(t.name, (into.get(t.name) ?? 0) + (t.ns - (before.get(tid)?.ns ?? 0)) / 1e6);
}

// Markers for a CPU profile (bun --cpu-prof): ~30 ms of work each, named, around each measured pass.
function MARKER_BEGIN(): number {
  let y = 0;
  for (const end = performance.now() + 30; performance.now() < end; ) y += Math.random();
  return y;
}
function MARKER_END(): number {
  let y = 0;
  for (const end = performance.now() + 30; performance.now() < end; ) y += Math.random();
  return y;
}

let x = Number(args.seed) >>> 0;
const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
const LINES = ["Tell me about the harbour and the lantern.", "Who guards the north gate at night?", "What do you know of the salt debt?", "Have you seen the ferryman?", "What happened at the mill?"];

// the calls the server makes out (a remote pool's /tokenize, its health probes), by path
const calls = new Map<string, number>();
const realFetch = globalThis.fetch;
globalThis.fetch = Object.assign((input: string | URL | Request, init?: RequestInit) => {
  const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
  calls.set(path, (calls.get(path) ?? 0) + 1);
  return realFetch(input, init);
}, realFetch);

const box = await startRemoteBox({ name: "http-preview", maxReplyTokens: 8, world: args.world, log });
/**
 * Changes that one server can switch between requests, for an old/new comparison in one run. query-cache: the
 * connection's prepared statements kept as bun:sqlite keeps them by default (old: its algorithm, 20 statements, least
 * recently used first out, here as an own `query` of the connection; the class's cache cannot be shrunk without
 * finalizing the statements modules hold) against the server's QUERY_CACHE_SIZE (new: the class's own `query`).
 */
const VARIANTS: Record<string, (side: "old" | "new") => void> = {
  "query-cache": (side) => {
    const db = box.app.db;
    if (side === "new") return void delete (db as unknown as Record<string, unknown>).query;
    const lru = new Map<string, ReturnType<typeof db.prepare>>();
    const query = (sql: string) => {
      let stmt = lru.get(sql);
      if (stmt) lru.delete(sql);
      else {
        stmt = db.prepare(sql);
        if (lru.size >= 20) lru.delete(lru.keys().next().value!);
      }
      lru.set(sql, stmt);
      return stmt;
    };
    Object.defineProperty(db, "query", { configurable: true, value: query });
  },
};
if (args.variant && !VARIANTS[args.variant]) throw new Error(`--variant: one of ${Object.keys(VARIANTS).join(", ")}`);
let side: "old" | "new" | null = null;
const use = (arm: Arm) => {
  const s = arm.split(":")[1] as "old" | "new" | undefined;
  if (!s || s === side) return;
  VARIANTS[args.variant!](s);
  side = s;
};

const driver = (() => {
  let waiting: ((a: DriverAnswer) => void) | null = null;
  let ready: () => void = () => {};
  const up = new Promise<void>((r) => (ready = r));
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "support/previewDriver.ts")], {
    stdout: "inherit",
    stderr: "inherit",
    ipc(message: DriverAnswer) {
      if (message.status === -1) return ready();
      const w = waiting;
      waiting = null;
      w?.(message);
    },
  });
  return {
    up,
    send: (ask: DriverAsk) => new Promise<DriverAnswer>((resolve) => ((waiting = resolve), proc.send(ask))),
    stop: () => proc.kill(),
  };
})();
try {
  const { app } = box;
  setRateLimits(app.ctx, world.projectId, { perPlayerPerMinute: RATE_LIMIT_MAX, perProjectPerMinute: RATE_LIMIT_MAX });
  const admin = ensureAdminToken(app.db).adminToken;
  app.listen();
  app.scheduler.start();
  const base = `http://127.0.0.1:${app.port}`;
  await settleRemoteBox(app, world.projectId, true, log);
  await driver.up;

  const minds = [...world.minds].sort(() => rnd() - 0.5);
  const ask = (mind: string, body = false): DriverAsk => ({
    url: `${base}/admin/v1/projects/${world.projectId}/interact-preview`,
    init: {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ text: LINES[Math.floor(rnd() * LINES.length)], entityMindId: mind, playerId: `player${Math.floor(rnd() * world.players)}`, memory: { retrieve: true } }),
    },
    body,
  });
  const inProcess = async (a: DriverAsk): Promise<DriverAnswer> => {
    const t0 = performance.now();
    const res = await app.handle(new Request(a.url, a.init));
    const text = await res.text();
    return { status: res.status, ms: performance.now() - t0, bytes: Buffer.byteLength(text), ...(a.body ? { body: text } : {}) };
  };
  // "nopool": in process with the generation backend set aside for the request (counts by the estimate, as
  // bench/first-turn.ts's server without a model counts): what the remote pool's counting costs a preview
  const pool = app.ctx.generation;
  const withoutPool = async (a: DriverAsk) => {
    app.ctx.generation = null;
    try {
      return await inProcess(a);
    } finally {
      app.ctx.generation = pool;
    }
  };
  const sendBy = (arm: Arm, a: DriverAsk) => {
    use(arm);
    const how = arm.split(":")[0] as Transport;
    return how === "http" ? driver.send(a) : how === "nopool" ? withoutPool(a) : inProcess(a);
  };

  // warm-up: the JIT and the connection, on minds no measured request names
  for (const m of minds.splice(0, 30)) for (const arm of arms) await sendBy(arm, ask(m));

  // the same request both ways: the replies must be the same bytes (the HTTP path adds nothing and drops nothing)
  // (the first two arms: over HTTP and in process, or a variant's old and new)
  const nCheck = arms.length >= 2 && !arms.includes("nopool") ? Number(args.check) : 0;
  let same = 0;
  const differ: string[] = [];
  for (const m of minds.splice(0, nCheck)) {
    const a = ask(m, true);
    const [h, p] = [await sendBy(arms[0], a), await sendBy(arms[1], a)];
    if (h.status === p.status && h.body === p.body) same++;
    else differ.push(`${h.status}/${p.status} ${h.bytes}/${p.bytes} B`);
  }
  if (nCheck) log(`replies compared: ${same} of ${nCheck} the same bytes both ways${differ.length ? `; differ: ${differ.slice(0, 3).join(", ")}` : ""}`);

  const measured = minds.splice(0, nReq);
  const plan = measured.map((m) => ask(m));
  type Tally = { n: number; cpu: number; user: number; sys: number; minflt: number; threads: Map<string, number>; wall: number[]; bytes: number; bad: number };
  const tally = () => new Map(arms.map((a) => [a, { n: 0, cpu: 0, user: 0, sys: 0, minflt: 0, threads: new Map<string, number>(), wall: [], bytes: 0, bad: 0 } as Tally]));
  const passes: { label: string; by: Map<string, Tally>; calls: Map<string, number> }[] = [];
  const loadBefore = loadavg()[0];
  for (const label of ["a mind's first since the start", "the same requests again"]) {
    const by = tally();
    Bun.gc(true);
    calls.clear();
    MARKER_BEGIN();
    for (let b = 0; b * block < plan.length; b++) {
      // A B, then B A: each arm goes first as often
      const order = b % 2 === 1 ? [...arms].reverse() : arms;
      for (const arm of order) {
        // each arm sends its half of this block's requests (the blocks' requests differ, the arms' CPU is per request)
        const slice = plan.slice(b * block, (b + 1) * block).filter((_, i) => i % arms.length === order.indexOf(arm));
        const t = by.get(arm)!;
        const t0 = threads();
        const f0 = faultsAndSys();
        const c0 = process.cpuUsage();
        for (const a of slice) {
          const r = await sendBy(arm, a);
          if (r.status !== 200 && t.bad++ === 0) log(`${arm}: status ${r.status}${r.body ? ` ${r.body.slice(0, 200)}` : ""}`);
          t.wall.push(r.ms);
          t.bytes += r.bytes;
          if (gapMs > 0) await Bun.sleep(gapMs);
        }
        const c1 = process.cpuUsage(c0);
        const f1 = faultsAndSys();
        byName(t0, threads(), t.threads);
        t.user += f1.user - f0.user;
        t.sys += f1.sys - f0.sys;
        t.minflt += f1.minflt - f0.minflt;
        t.cpu += (c1.user + c1.system) / 1000;
        t.n += slice.length;
      }
    }
    MARKER_END();
    passes.push({ label, by, calls: new Map(calls) });
    log(`${label}: ${[...by].map(([a, t]) => `${a} ${(t.cpu / t.n).toFixed(2)} ms CPU a request (${t.n}, ${t.bad} not 200)`).join("; ")}`);
  }
  const cols = [...new Set(passes.flatMap((p) => [...p.by.values()].flatMap((t) => [...t.threads].filter(([, ms]) => ms / t.n >= 0.02).map(([k]) => k))))];
  cols.sort((a, b) => Math.max(...passes.flatMap((p) => [...p.by.values()].map((t) => (t.threads.get(b) ?? 0) / t.n))) - Math.max(...passes.flatMap((p) => [...p.by.values()].map((t) => (t.threads.get(a) ?? 0) / t.n))));
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
  console.log(`\n### A preview over HTTP and in process, one server — ${new Date().toISOString().slice(0, 16)} UTC\n`);
  console.log(`${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after; Bun ${Bun.version}; world ${args.world}; ${plan.length} requests a pass in blocks of ${block}, ${gapMs} ms apart; server CPU by thread from schedstat.${nCheck ? ` Replies compared (${arms[0]} / ${arms[1]}): ${same} of ${nCheck} byte-equal.` : ""}\n`);
  console.log(`| pass | arm | n | wall p50 / p99 | reply KB | process CPU a request | JS thread user / sys (ticks) | page faults | ${cols.join(" | ")} |`);
  console.log(`|---|---|---|---|---|---|---|---|${cols.map(() => "---").join("|")}|`);
  for (const p of passes)
    for (const [arm, t] of p.by)
      console.log(
        `| ${p.label} | ${{ http: "over HTTP", process: "in process", nopool: "in process, no pool" }[arm.split(":")[0] as Transport]}${arm.includes(":") ? `, ${arm.split(":")[1]}` : ""} | ${t.n}${t.bad ? ` (${t.bad} not 200)` : ""} | ${pct(t.wall, 0.5).toFixed(2)} / ${pct(t.wall, 0.99).toFixed(2)} ms | ${(t.bytes / t.n / 1024).toFixed(1)} | ${(t.cpu / t.n).toFixed(3)} ms | ${(t.user / t.n).toFixed(2)} / ${(t.sys / t.n).toFixed(2)} | ${(t.minflt / t.n).toFixed(0)} | ${cols.map((c) => ((t.threads.get(c) ?? 0) / t.n).toFixed(3)).join(" | ")} |`,
      );
  for (const p of passes) console.log(`\nCalls out during "${p.label}" (${[...p.by.values()].reduce((n, t) => n + t.n, 0)} requests): ${[...p.calls].map(([k, v]) => `${k} ${v}`).join(", ") || "none"}.`);
  const idleS = Number(args["idle-s"]);
  if (idleS > 0) {
    calls.clear();
    MARKER_BEGIN();
    // what the server spends with nothing sent (its scheduler's ticks, the pool's health probes, the allocator's
    // purges): at a request a second, every request's CPU above carries a second of it
    const i0 = threads();
    const f0 = faultsAndSys();
    await Bun.sleep(idleS * 1000);
    const f1 = faultsAndSys();
    MARKER_END();
    const idle = new Map<string, number>();
    byName(i0, threads(), idle);
    const busy = [...idle].filter(([, ms]) => ms / idleS >= 0.01).sort((a, b) => b[1] - a[1]);
    console.log(`\nIdle for ${idleS} s: ${busy.map(([k, ms]) => `${k} ${(ms / idleS).toFixed(2)}`).join(", ")} ms of CPU a second; the JS thread's user / sys ticks ${((f1.user - f0.user) / idleS).toFixed(1)} / ${((f1.sys - f0.sys) / idleS).toFixed(1)} ms a second, page faults ${((f1.minflt - f0.minflt) / idleS).toFixed(0)} a second; calls out: ${[...calls].map(([k, v]) => `${k} ${v}`).join(", ") || "none"}.`);
  }
  for (const p of passes)
    for (const arm of arms.slice(1)) {
      const h = p.by.get(arms[0])!;
      const q = p.by.get(arm)!;
      console.log(`\n${p.label}: ${arms[0]} ÷ ${arm} = ${(h.cpu / h.n / (q.cpu / q.n)).toFixed(2)} (process CPU), ${((h.threads.get("bun") ?? 0) / h.n / ((q.threads.get("bun") ?? 0) / q.n)).toFixed(2)} (JS thread)`);
    }
} finally {
  driver.stop();
  await box.stop();
}
