// The one-time memory vector fill (`memory-vector-fill`) on a big world from before the copy existed: the process's
// RSS after start, its peak during the fill and after it, the fill's wall and CPU, the SQLite file's growth, and
// interact-preview requests' latency while the fill runs beside the same requests after it. Two versions of the code
// run side by side: each run copies the world afresh and starts a child process that imports that version's App, the
// versions alternated (a, b, b, a, …) so the box's load falls on both alike.
// Usage: bun bench/memory-fill.ts --world <world folder> --variants before:/tmp/old-checkout,now:. [--runs 2] [--tmp /tmp/x]
//   (a checkout needs its node_modules: a symlink to this one's does)
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    world: { type: "string" },
    variants: { type: "string", default: "now:." },
    runs: { type: "string", default: "1" },
    tmp: { type: "string", default: tmpdir() },
    child: { type: "string" },
    root: { type: "string" },
    data: { type: "string" },
    previews: { type: "string", default: "150" },
  },
});
if (!args.world) throw new Error("--world <folder> is required");
const w = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; adminToken: string; minds: string[] };

const status = () => {
  const s = readFileSync("/proc/self/status", "utf8");
  const kb = (k: string) => Number(s.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0) / 1e3;
  return { rss: kb("VmRSS"), anon: kb("RssAnon") };
};
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))] ?? NaN;

if (args.child) {
  // ---------------------------------------------------------------- one run, in the child, on one version of the code
  const root = resolve(args.root!);
  const { App } = await import(join(root, "src/app/App.ts"));
  const { loadConfig } = await import(join(root, "src/config/config.ts"));
  const { silentLogger } = await import(join(root, "src/ops/logger.ts"));
  const data = args.data!;
  const dbBytes = () => statSync(join(data, "lorehold.db")).size + (statSync(join(data, "lorehold.db-wal"), { throwIfNoEntry: false })?.size ?? 0);
  const out: Record<string, unknown> = { label: args.child, dbBefore: dbBytes() / 1e6 };
  const config = loadConfig({ cwd: data, env: {}, flags: { dataDir: data, modelsDir: join(data, "models"), threads: 1, logLevel: "silent" } as never });
  const app = await App.create(config, { logger: silentLogger, loadModel: false });
  await app.ctx.vectors.warm([w.projectId]);
  const LINES = ["Any news from the harbour?", "What do you know of the old bridge?", "Tell me about the abbey bell.", "Who keeps the lantern?"];
  let n = 0;
  const preview = async (mind: string) => {
    const t0 = performance.now();
    const res = await app.handle(
      new Request(`http://local/admin/v1/projects/${w.projectId}/interact-preview`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ text: LINES[n % LINES.length], entityMindId: mind, playerId: `player${(n++ * 7919) % 100_000}`, memory: { retrieve: true } }),
      }),
    );
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`preview: ${res.status}`);
    return performance.now() - t0;
  };
  // twenty minds seen once, so every measured request is a seen mind with a player new to it
  const minds = w.minds.slice(0, 20);
  for (const m of minds) await preview(m);
  Bun.gc(true);
  out.afterStart = status();
  let peak = status();
  const sampler = setInterval(() => {
    const s = status();
    if (s.rss > peak.rss) peak = s;
  }, 50);
  const c0 = cpu();
  const t0 = performance.now();
  let fillDone = false;
  const fill = app.scheduler.trigger("memory-vector-fill").then((s: { lastResult: unknown; lastError: string | null } | null) => {
    fillDone = true;
    return s;
  });
  const during: number[] = [];
  while (!fillDone) {
    during.push(await preview(minds[during.length % minds.length]));
    await Bun.sleep(50);
  }
  const s = await fill;
  out.fill = { wallMs: performance.now() - t0, cpuMs: cpu() - c0, result: s?.lastResult, error: s?.lastError };
  clearInterval(sampler);
  out.peak = peak;
  out.afterFill = status();
  const after: number[] = [];
  for (let i = 0; i < Math.min(during.length, Number(args.previews)); i++) {
    after.push(await preview(minds[i % minds.length]));
    await Bun.sleep(50);
  }
  Bun.gc(true);
  await Bun.sleep(2000);
  Bun.gc(true);
  out.afterFillGc = status();
  out.previews = { during: { n: during.length, p50: pct(during, 0.5), p99: pct(during, 0.99) }, after: { n: after.length, p50: pct(after, 0.5), p99: pct(after, 0.99) } };
  await app.stop();
  out.dbAfter = dbBytes() / 1e6;
  console.log(JSON.stringify(out));
  process.exit(0);
}

// -------------------------------------------------------------------- the parent: copies, alternation, the table
const variants = args.variants.split(",").map((v) => {
  const [label, root] = v.split(":");
  return { label, root: resolve(root) };
});
const order: typeof variants = [];
for (let r = 0; r < Number(args.runs); r++) order.push(...(r % 2 ? [...variants].reverse() : variants));
const results: Record<string, unknown>[] = [];
for (const v of order) {
  const dir = mkdtempSync(join(args.tmp, "lorehold-bench-fill-"));
  try {
    cpSync(join(args.world, "data"), join(dir, "data"), { recursive: true });
    const load0 = loadavg()[0];
    const child = Bun.spawnSync([process.execPath, import.meta.path, "--child", v.label, "--root", v.root, "--data", join(dir, "data"), "--world", args.world, "--previews", args.previews], { stdout: "pipe", stderr: "inherit" });
    const line = child.stdout.toString().trim().split("\n").pop() ?? "";
    if (child.exitCode !== 0) throw new Error(`${v.label}: exit ${child.exitCode}`);
    const r = { ...JSON.parse(line), load: `${load0.toFixed(1)}–${loadavg()[0].toFixed(1)}` };
    results.push(r);
    console.error(JSON.stringify(r));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const f = (x: number) => x.toFixed(0);
console.log(`\nMachine: ${cpus()[0]?.model}, ${availableParallelism()} cores, Bun ${Bun.version}; world ${args.world}\n`);
console.log("| run | load | RSS after start (anon) | peak during the fill (anon) | after the fill | 2 s after a full GC | fill wall / CPU | copied | SQLite before → after | preview p50 / p99 during the fill (n) | … after it (n) |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of results as any[]) {
  console.log(
    `| ${r.label} | ${r.load} | ${f(r.afterStart.rss)} (${f(r.afterStart.anon)}) MB | ${f(r.peak.rss)} (${f(r.peak.anon)}) | ${f(r.afterFill.rss)} (${f(r.afterFill.anon)}) | ${f(r.afterFillGc.rss)} (${f(r.afterFillGc.anon)}) | ${(r.fill.wallMs / 1e3).toFixed(1)} / ${(r.fill.cpuMs / 1e3).toFixed(1)} s | ${r.fill.result?.copied ?? r.fill.error} | ${(r.dbBefore / 1e3).toFixed(2)} → ${(r.dbAfter / 1e3).toFixed(2)} GB | ${r.previews.during.p50.toFixed(1)} / ${r.previews.during.p99.toFixed(1)} ms (${r.previews.during.n}) | ${r.previews.after.p50.toFixed(1)} / ${r.previews.after.p99.toFixed(1)} ms (${r.previews.after.n}) |`,
  );
}
