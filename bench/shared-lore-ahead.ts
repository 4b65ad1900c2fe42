// A remote pool's shared-lore choices made ahead (src/npc/sharedLore/sharedLoreWarmup.ts): what the warm-up's first
// pass over a big world costs when every text the choices count goes through the server's /tokenize first, and what
// the pass costs once those counts are kept (a restarted server whose choices must be made again: the lore changed
// under the same texts, or the choices were dropped). The box of bench/http-cost.ts (a copy of `--world`, a real
// llama-server on a tiny model, 1 thread); the scheduler is not started, the warm-up's ticks are triggered here, and
// the choices the copy holds are dropped first.
// Reported per pass: wall, this process's CPU, the llama-server's CPU, /tokenize calls and the bytes they carried.
// Usage: bun bench/shared-lore-ahead.ts --world <folder>
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { deleteSelections } from "../src/npc/sharedLore/sharedLoreStore.ts";
import { settleRemoteBox, startRemoteBox } from "./support/remoteBox.ts";

const { values: args } = parseArgs({ options: { world: { type: "string" } } });
if (!args.world) throw new Error("--world <folder> is required");
const world = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; minds: string[] };
const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

let calls = 0;
let bytes = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = Object.assign((input: string | URL | Request, init?: RequestInit) => {
  if (new URL(input instanceof Request ? input.url : String(input)).pathname === "/tokenize") {
    calls++;
    bytes += typeof init?.body === "string" ? Buffer.byteLength(init.body) : 0;
  }
  return realFetch(input, init);
}, realFetch);

/** CPU time (ms) of a process so far, from /proc. */
const procCpu = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};

const box = await startRemoteBox({ name: "shared-lore-ahead", maxReplyTokens: 8, world: args.world, log });
try {
  await settleRemoteBox(box.app, world.projectId, false);
  const rows: string[] = [];
  const pass = async (label: string) => {
    calls = 0;
    bytes = 0;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const l0 = procCpu(box.llama.proc.pid);
    const results: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      const r = (await box.app.scheduler.trigger("shared-lore-warmup"))!.lastResult as { chosen: number; walked: number };
      results.push(r);
      if (r.chosen === 0 && r.walked === 0) break;
    }
    const c1 = process.cpuUsage(c0);
    const wall = (performance.now() - t0) / 1000;
    const line = `| ${label} | ${JSON.stringify(results[0])} | ${wall.toFixed(1)} s | ${((c1.user + c1.system) / 1e6).toFixed(1)} s | ${((procCpu(box.llama.proc.pid) - l0) / 1000).toFixed(1)} s | ${calls} | ${(bytes / 1e6).toFixed(1)} MB |`;
    log(line);
    rows.push(line);
  };
  const loadBefore = loadavg()[0];
  // choices a copied world holds (made by the process that built or upgraded it) are dropped: every one is made here
  deleteSelections(box.app.db, world.projectId);
  await pass("first pass: every count asked");
  await box.restart();
  await settleRemoteBox(box.app, world.projectId, false);
  deleteSelections(box.app.db, world.projectId);
  await pass("after a restart, every choice dropped: the counts kept");
  console.log(`\n### A remote pool's shared-lore choices made ahead — ${new Date().toISOString().slice(0, 10)}\n`);
  console.log(`${availableParallelism()} cores, load ${loadBefore.toFixed(1)} before; world ${args.world} (${world.minds.length} minds); llama-server 1 thread on a tiny model.\n`);
  console.log("| pass | first tick's result | wall | this process's CPU | llama-server's CPU | /tokenize calls | bytes sent |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(rows.join("\n"));
} finally {
  await box.stop();
}
