// Where one kind of request's CPU goes over HTTP on a big world: the server of bench/scale.ts (a copy of `--world`,
// its scheduler running, a remote llama-server on a tiny model), one kind sent alone from another process at
// `--rate`, twice: the requests as the load of bench/scale.ts makes them (random minds of 1,000 and players: mostly
// a mind's first since the start), then the very same requests again (every mind seen). For each pass: the server
// process's CPU per request split by thread (/proc/self/task: the JS thread "bun", LanceDB's "tokio-rt-worker" and
// "lance-cpu", the GC's, Bun's HTTP client), the calls it made out (a remote pool's /tokenize), and the CPU it spent
// in the `--settle` seconds after the last reply (work the requests left behind).
// `bun --cpu-prof` on this script profiles the JS thread; the requests run between two calls named MARKER_BEGIN and
// MARKER_END, so the profile's samples of each pass can be told from the start-up's.
// Usage: bun bench/http-cost.ts --world <folder> [--kind preview|event|state|lore] [--requests 200] [--rate 20] [--settle 8]
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { ensureAdminToken } from "../src/admin/adminToken.ts";
import { RATE_LIMIT_MAX, setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { settleRemoteBox, startRemoteBox } from "./support/remoteBox.ts";
import type { KindPlan, KindResult } from "./support/kindLoad.ts";

const { values: args } = parseArgs({
  options: {
    world: { type: "string" },
    kind: { type: "string", default: "preview" },
    requests: { type: "string", default: "200" },
    rate: { type: "string", default: "20" },
    settle: { type: "string", default: "8" },
  },
});
if (!args.world) throw new Error("--world <folder> is required");
const world = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; editor: string; minds: string[]; players: number };
const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

/** Each thread's CPU time so far (ms), by thread id, with its name. */
function threads(): Map<string, { name: string; ms: number }> {
  const out = new Map<string, { name: string; ms: number }>();
  const tick = 1000 / 100; // USER_HZ
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(tid, { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), ms: (Number(f[11]) + Number(f[12])) * tick });
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out;
}
function byName(before: Map<string, { name: string; ms: number }>, after: Map<string, { name: string; ms: number }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [tid, t] of after) out.set(t.name, (out.get(t.name) ?? 0) + t.ms - (before.get(tid)?.ms ?? 0));
  return out;
}
// Markers for a CPU profile (bun --cpu-prof): ~30 ms of work each, named, around the measured requests.
function MARKER_BEGIN(): number {
  let x = 0;
  for (const end = performance.now() + 30; performance.now() < end; ) x += Math.random();
  return x;
}
function MARKER_END(): number {
  let x = 0;
  for (const end = performance.now() + 30; performance.now() < end; ) x += Math.random();
  return x;
}

const calls = new Map<string, number>();
const realFetch = globalThis.fetch;
globalThis.fetch = Object.assign((input: string | URL | Request, init?: RequestInit) => {
  const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
  calls.set(path, (calls.get(path) ?? 0) + 1);
  return realFetch(input, init);
}, realFetch);

const box = await startRemoteBox({ name: "http-cost", maxReplyTokens: 8, world: args.world, log });
try {
  const { app, dir } = box;
  const ctx = app.ctx;
  setRateLimits(ctx, world.projectId, { perPlayerPerMinute: RATE_LIMIT_MAX, perProjectPerMinute: RATE_LIMIT_MAX });
  const plan: KindPlan = {
    base: "",
    projectId: world.projectId,
    serverKey: createApiKey(ctx, { projectId: world.projectId, type: "server" }).key,
    editorKey: world.editor,
    adminToken: ensureAdminToken(app.db).adminToken,
    minds: world.minds,
    players: world.players,
    kind: args.kind as KindPlan["kind"],
    requests: Number(args.requests),
    rate: Number(args.rate),
  };
  app.listen();
  app.scheduler.start();
  plan.base = `http://127.0.0.1:${app.port}`;
  // settled as bench/scale.ts settles a restarted box before its load
  await settleRemoteBox(app, world.projectId, true, log);
  const planPath = join(dir, "plan.json");
  const send = async (seed: number, n: number): Promise<KindResult> => {
    writeFileSync(planPath, JSON.stringify({ ...plan, requests: n, seed }));
    const p = Bun.spawn([process.execPath, join(import.meta.dir, "support/kindLoad.ts"), planPath], { stdout: "pipe", stderr: "inherit" });
    const out = await new Response(p.stdout).text();
    await p.exited;
    return JSON.parse(out.trim().split("\n").pop()!) as KindResult;
  };
  // warm-up: the JIT, the connections (other minds than the measured requests' seed picks, mostly)
  await send(12345, 40);
  const loadBefore = loadavg()[0];
  const rows: string[] = [];
  const names = new Set<string>();
  const passes: { label: string; r: KindResult; per: Map<string, number>; after: Map<string, number>; cpu: number; calls: Map<string, number> }[] = [];
  for (const label of ["as the load makes them", "the same requests again"]) {
    Bun.gc(true);
    calls.clear();
    const t0 = threads();
    const c0 = process.cpuUsage();
    MARKER_BEGIN();
    const r = await send(0x9e3779b9, plan.requests);
    MARKER_END();
    const c1 = process.cpuUsage(c0);
    const t1 = threads();
    const seen = new Map(calls);
    await Bun.sleep(Number(args.settle) * 1000);
    const t2 = threads();
    const per = byName(t0, t1);
    const after = byName(t1, t2);
    for (const [k, v] of [...per, ...after]) if (v > 0) names.add(k);
    passes.push({ label, r, per, after, cpu: (c1.user + c1.system) / 1000, calls: seen });
    log(`${label}: ${r.ok} ok, p50 ${r.p50.toFixed(1)} ms, ${((c1.user + c1.system) / 1000 / plan.requests).toFixed(2)} ms CPU a request`);
  }
  const cols = [...names].sort((a, b) => Math.max(...passes.map((p) => p.per.get(b) ?? 0)) - Math.max(...passes.map((p) => p.per.get(a) ?? 0))).slice(0, 6);
  console.log(`\n### ${plan.kind} over HTTP, CPU a request by thread — ${new Date().toISOString().slice(0, 10)}\n`);
  console.log(`${availableParallelism()} cores, load ${loadBefore.toFixed(1)} before; world ${args.world}; ${plan.requests} requests at ${plan.rate}/s a pass; thread CPU from /proc (10 ms ticks), after = the ${args.settle} s after the last reply.\n`);
  console.log(`| pass | ok | wall p50 / p99 | reply KB | process CPU | ${cols.map((c) => `${c} (after)`).join(" | ")} | calls out a request |`);
  console.log(`|---|---|---|---|---|${cols.map(() => "---").join("|")}|---|`);
  for (const p of passes) {
    const n = plan.requests;
    const th = cols.map((c) => `${((p.per.get(c) ?? 0) / n).toFixed(2)} (${((p.after.get(c) ?? 0) / n).toFixed(2)})`);
    const out = [...p.calls].map(([k, v]) => `${k} ${(v / n).toFixed(2)}`).join(", ") || "none";
    const bad = Object.entries(p.r.errors).map(([c, k]) => `${k}× ${c}`).join(", ");
    rows.push(`| ${p.label} | ${p.r.ok}${bad ? ` (${bad})` : ""} | ${p.r.p50.toFixed(1)} / ${p.r.p99.toFixed(1)} ms | ${(p.r.bytes / Math.max(1, p.r.ok) / 1024).toFixed(1)} | ${(p.cpu / n).toFixed(2)} ms | ${th.join(" | ")} | ${out} |`);
  }
  console.log(rows.join("\n"));
} finally {
  await box.stop();
}
