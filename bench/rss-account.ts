// Where a big world's resident memory goes, stage by stage, in one server process: the kernel's split (anonymous
// memory, file pages mapped: the vector cache's snapshot, SQLite, LanceDB's files, the binaries), the JS heap and
// array buffers as the runtime counts them, and what the vector cache reckons it holds.
// The world is one of bench/preview-overhead.ts (`--world`), used on a fresh copy.
// Usage: bun bench/rss-account.ts --world <preview world> [--previews 200] [--jobs yes: the scheduler's start jobs too]
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { heapStats } from "bun:jsc";
import { dlopen, FFIType } from "bun:ffi";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { updateSettings } from "../src/projects/settings.ts";

const { values: args } = parseArgs({ options: { world: { type: "string" }, previews: { type: "string", default: "200" }, label: { type: "string", default: "this code" }, jobs: { type: "string", default: "no" } } });
if (!args.world) throw new Error("--world <folder> is required");
const w = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; adminToken: string; minds: string[]; players: number; chunks: number };
const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-rss-"));
cpSync(join(args.world, "data"), join(dir, "data"), { recursive: true });

const MB = (b: number) => (b / 1e6).toFixed(0);
/** The kernel's view: RSS split by kind, and the file mappings grouped by what they are. */
function kernel() {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (k: string) => Number(status.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0) * 1024;
  const groups: Record<string, number> = {};
  let name = "";
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const head = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/);
    if (head) {
      const p = head[1];
      name = p.endsWith(".snap") || p.includes("cache-g") ? "vector cache snapshot (mapped)" : p.includes("lorehold.db") ? "SQLite files" : p.includes(".lance") ? "LanceDB files" : p.includes(".so") || p.includes("bun") ? "binaries and libraries" : p === "" || p.startsWith("[") ? `anonymous ${p}` : "other files";
      continue;
    }
    const rss = line.match(/^Rss:\s+(\d+) kB/);
    if (rss) groups[name] = (groups[name] ?? 0) + Number(rss[1]) * 1024;
  }
  return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile"), groups };
}
/** glibc's malloc_trim(0), where there is one (Linux with glibc); null elsewhere. */
const trim = (() => {
  try {
    const libc = dlopen("libc.so.6", { malloc_trim: { args: [FFIType.u64], returns: FFIType.i32 } });
    return () => libc.symbols.malloc_trim(0);
  } catch {
    return null;
  }
})();
const rows: string[] = [];
let app: App;
async function stage(label: string) {
  const k = kernel();
  const m = process.memoryUsage();
  const h = heapStats();
  const g = app.ctx.vectors.activeGeneration();
  const cache = await app.ctx.vectors.projectCache(g, w.projectId);
  const files = Object.entries(k.groups).filter(([n]) => !n.startsWith("anonymous")).map(([n, b]) => `${n} ${MB(b)}`).join(", ");
  rows.push(`| ${label} | ${MB(k.rss)} | ${MB(k.anon)} | ${MB(k.file)} (${files}) | ${MB(m.heapUsed)} / ${MB(h.heapCapacity)} | ${MB(m.arrayBuffers)} | ${MB(cache.bytes)} (${cache.columnState}) | ${g.memoryGroups.rows} |`);
  console.error(`[${new Date().toISOString().slice(11, 19)}] ${label}: RSS ${MB(k.rss)} MB`);
}
const configFor = (dataDir: string, cwd: string) =>
  loadConfig({ cwd, env: {}, flags: { dataDir, modelsDir: join(cwd, "models"), contextSize: 4096, maxReplyTokens: 64, threads: 1, logLevel: "silent", vectorIndexMinChunks: 0 } as never });
app = await App.create(configFor(join(dir, "data"), dir), { logger: silentLogger, loadModel: false });
try {
  const ctx = app.ctx;
  Bun.gc(true);
  await stage("started (no project loaded)");
  await ctx.vectors.warm([w.projectId]);
  Bun.gc(true);
  await stage("the project's vector cache loaded (snapshot)");
  if (args.jobs === "yes") {
    // what a server's scheduler runs at its start (runOnStart: the shared-lore warm-up of every mind, the memory
    // vector fill on a world from before the copy, the sweeps), until every one has ended once
    const t0 = performance.now();
    app.scheduler.start();
    await Bun.sleep(100);
    while (app.scheduler.list().some((j) => j.running)) await Bun.sleep(100);
    const ran = app.scheduler.list().filter((j) => j.runs > 0).map((j) => `${j.name} ${j.lastDurationMs} ms`).join(", ");
    console.error(`start jobs: ${ran} (${(performance.now() - t0).toFixed(0)} ms)`);
    await stage("the start's jobs run (scheduler)");
    Bun.gc(true);
    await Bun.sleep(2000);
    await stage("… 2 s after a full collection");
    if (trim) {
      trim();
      await stage("… and glibc's malloc_trim(0)");
    }
  }
  let s = 0x9e3779b9;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const preview = async (mind: string, player: string) => {
    const res = await app.handle(
      new Request(`http://local/admin/v1/projects/${w.projectId}/interact-preview`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ text: "What do you know of the salt debt and the harbour?", entityMindId: mind, playerId: player, memory: { retrieve: true } }),
      }),
    );
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`preview ${res.status}`);
  };
  await preview(w.minds[0], "player0");
  await (await ctx.vectors.projectCache(ctx.vectors.activeGeneration(), w.projectId)).indexIdle();
  Bun.gc(true);
  await stage("one preview, the column copy built");
  const n = Number(args.previews);
  for (let i = 0; i < n; i++) await preview(w.minds[Math.floor(rnd() * w.minds.length)], `player${Math.floor(rnd() * w.players)}`);
  await stage(`${n} previews, random minds (default retrieval)`);
  updateSettings(ctx, w.projectId, { enhancedMemoryRetrieval: true });
  for (let i = 0; i < n; i++) {
    const p = Math.floor(rnd() * w.players);
    await preview(w.minds[p % w.minds.length], `player${p}`);
  }
  await stage(`${n} previews more, enhanced retrieval (memory groups read)`);
  Bun.gc(true);
  await stage("after a full collection");
  // what the allocator holds free: glibc's malloc_trim gives back the free pages of every arena (LanceDB's threads
  // allocate through it); the difference is memory the process held but did not use
  if (trim) {
    trim();
    await stage("… and glibc's malloc_trim(0)");
  }
  const h = heapStats();
  const top = Object.entries(h.objectTypeCounts).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([t, c]) => `${t} ${c.toLocaleString("en")}`).join(", ");
  console.log(`\n${args.label}: ${w.chunks.toLocaleString("en")} chunks, ${w.minds.length} minds, ${w.players.toLocaleString("en")} players; ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}\n`);
  console.log("| stage | RSS MB | anonymous | file-backed (of which) | JS heap used / capacity | array buffers | vector cache (its estimate; column copy) | memory-group rows |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  console.log(`\nmost common heap objects at the end: ${top}`);
} finally {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
}
