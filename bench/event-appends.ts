// An event write's LanceDB work after its reply, with the memory appends of a window batched into one commit
// (src/vectors/MemoryAppends.ts) against a commit per write (memoryAppendWindowMs 0: what every write did before).
// One process, one copy of the world per arm, each opened by its own App (no scheduler), blocks alternating between
// the arms: each block sends `--writes` events about a player (one witness: what bench/scale.ts's load sends) open
// loop at `--rate`/s through the in-process HTTP app, then `--settle` s with nothing sent, so the upkeep's compaction
// a burst of commits wakes (src/vectors/OptimizePolicy.ts, after a 2 s pause) falls in its block.
// Per arm: the process's CPU per write while the writes ran and in the settle (user + system, LanceDB's threads
// included), the memories table's commits (its version) and new fragments per 100 writes before the compaction,
// and the compactions the blocks woke.
// Usage: bun bench/event-appends.ts --world <a world of bench/preview-overhead.ts> [--arms 0,100] [--blocks 3]
//        [--writes 160] [--rate 20] [--settle 8]
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { RATE_LIMIT_MAX, setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";

const { values: args } = parseArgs({
  options: {
    world: { type: "string" },
    arms: { type: "string", default: "0,100" },
    blocks: { type: "string", default: "3" },
    writes: { type: "string", default: "160" },
    rate: { type: "string", default: "20" },
    settle: { type: "string", default: "8" },
  },
});
if (!args.world) throw new Error("--world <folder> is required");
const meta = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; minds: string[]; players: number };
const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Arm {
  window: number;
  dir: string;
  app: App;
  key: string;
  during: number[];
  after: number[];
  commits: number[];
  fragments: number[];
  optimizes: number;
  failed: number;
}

let n = 0;
const arms: Arm[] = [];
const made: string[] = [];
process.on("exit", () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
for (const window of args.arms!.split(",").map(Number)) {
  const dir = mkdtempSync(join(tmpdir(), `lorehold-bench-appends-${window}-`));
  made.push(dir); // removed at the end whatever happens
  log(`copying the world for the ${window} ms arm`);
  cpSync(join(args.world, "data"), join(dir, "data"), { recursive: true });
  const config = loadConfig({ cwd: dir, env: {}, flags: { dataDir: join(dir, "data"), modelsDir: join(dir, "models"), threads: 1, logLevel: "silent", memoryAppendWindowMs: window } as never });
  const app = await App.create(config, { logger: silentLogger, loadModel: false });
  const key = createApiKey(app.ctx, { projectId: meta.projectId, type: "server" }).key;
  setRateLimits(app.ctx, meta.projectId, { perPlayerPerMinute: RATE_LIMIT_MAX, perProjectPerMinute: RATE_LIMIT_MAX });
  // the compactions the blocks wake, counted where the upkeep runs them
  const arm: Arm = { window, dir, app, key, during: [], after: [], commits: [], fragments: [], optimizes: 0, failed: 0 };
  const upkeep = app.ctx.vectors.upkeep;
  const run = upkeep.run.bind(upkeep);
  upkeep.run = (kind) => {
    if (kind === "memories") arm.optimizes++;
    return run(kind);
  };
  // a first write and its compaction before the blocks (the table's first open costs)
  await write(arm, 0);
  await app.ctx.vectors.optimizeNow();
  arm.optimizes = 0;
  arms.push(arm);
}

function write(arm: Arm, i: number): Promise<void> {
  const body = { type: "trade", description: `The player sold ${1 + (n++ % 40)} barrels of salt at the harbour`, playerId: `player${(i * 7919) % meta.players}`, witnesses: [meta.minds[(i * 104729) % meta.minds.length]], importance: 3 };
  return arm.app
    .handle(new Request("http://local/v1/events", { method: "POST", headers: { authorization: `Bearer ${arm.key}`, "content-type": "application/json" }, body: JSON.stringify(body) }))
    .then(async (res) => {
      await res.text();
      if (res.status !== 201) arm.failed++;
    });
}

async function block(arm: Arm): Promise<void> {
  const table = arm.app.ctx.vectors.activeGeneration().memories;
  const v0 = await table.version();
  const f0 = (await table.stats()).fragmentStats.numFragments;
  const writes = Number(args.writes);
  const gap = 1000 / Number(args.rate);
  const c0 = cpu();
  const t0 = performance.now();
  const sent: Promise<void>[] = [];
  for (let i = 0; i < writes; i++) {
    const wait = t0 + i * gap - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    sent.push(write(arm, i));
  }
  await Promise.all(sent);
  const c1 = cpu();
  // the rows still in their window committed now (they would be at its end, in the same one commit), counted before
  // the upkeep's compaction (2 s after the last commit)
  await arm.app.ctx.vectors.appends.flush();
  const v1 = await table.version();
  const f1 = (await table.stats()).fragmentStats.numFragments;
  await Bun.sleep(Number(args.settle) * 1000);
  await arm.app.ctx.vectors.upkeep.idle();
  const c2 = cpu();
  arm.during.push((c1 - c0) / writes);
  arm.after.push((c2 - c1) / writes);
  arm.commits.push(((v1 - v0) * 100) / writes);
  arm.fragments.push(((f1 - f0) * 100) / writes);
}

const loads: number[] = [loadavg()[0]];
try {
  for (let b = 0; b < Number(args.blocks); b++) {
    // the order alternates block by block: neither arm always follows the other
    for (const arm of b % 2 ? [...arms].reverse() : arms) {
      await block(arm);
      loads.push(loadavg()[0]);
      log(`block ${b + 1}, ${arm.window} ms: ${arm.during.at(-1)!.toFixed(2)} + ${arm.after.at(-1)!.toFixed(2)} ms a write, ${arm.commits.at(-1)!.toFixed(0)} commits / 100`);
    }
  }
  const memories = arms[0].app.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memories").get()!.n;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const f = (xs: number[]) => `${mean(xs).toFixed(2)} (${xs.map((x) => x.toFixed(2)).join(", ")})`;
  console.log(
    `\n${memories.toLocaleString("en")} memories; ${availableParallelism()} cores (${cpus()[0]?.model}); load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; Bun ${Bun.version}; ${args.blocks} blocks an arm of ${args.writes} event writes at ${args.rate}/s, then ${args.settle} s settle\n`,
  );
  console.log("| memoryAppendWindowMs | CPU a write while sent, mean (blocks) | after the replies | all | commits / 100 writes | fragments / 100 writes | compactions woken | failed |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const a of arms) {
    const all = a.during.map((d, i) => d + a.after[i]);
    console.log(`| ${a.window} | ${f(a.during)} ms | ${f(a.after)} ms | **${mean(all).toFixed(2)} ms** | ${mean(a.commits).toFixed(1)} | ${mean(a.fragments).toFixed(1)} | ${a.optimizes} | ${a.failed} |`);
  }
  const base = arms[0];
  const all = (a: Arm) => mean(a.during.map((d, i) => d + a.after[i]));
  for (const a of arms.slice(1)) console.log(`\n${a.window} ms ÷ ${base.window} ms: CPU a write ${(all(a) / all(base)).toFixed(2)}×, commits ${(mean(a.commits) / mean(base.commits)).toFixed(2)}×`);
} finally {
  for (const a of arms) {
    await a.app.stop().catch(() => undefined);
    rmSync(a.dir, { recursive: true, force: true });
  }
}
