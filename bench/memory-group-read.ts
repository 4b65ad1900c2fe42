// A memory group's read from LanceDB (a player's memories with one mind, read whole at the pair's first turn with
// enhanced retrieval: src/vectors/memoryIndex.ts): filtered by project, mind and player (as it was) beside player
// and mind only (now; the project checked per row), interleaved query by query over one table. Reports wall and
// CPU (user + system, LanceDB's threads included) p50 / p99 of each.
// With --db, the same groups read from the SQLite copy beside the memories' rows too (memory_vectors: what a pair's
// first read is now; the world must have the copy, e.g. made by a server's memory-vector-fill job on a copy of it).
// Usage: bun bench/memory-group-read.ts --lance <data>/lance [--db <data>/lorehold.db] [--players 100000] [--queries 100]
//        (a world of bench/preview-overhead.ts, e.g. topped up to 1M memories with --from; read-only: copy it first)
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import * as lancedb from "@lancedb/lancedb";
import { memoryFilter, memoryGroupFilter } from "../src/vectors/filters.ts";
import { MEMORY_COLUMNS } from "../src/vectors/schemas.ts";
import { openDatabase } from "../src/db/openDatabase.ts";
import { readMemoryGroup } from "../src/npc/memory/memoryVectorStore.ts";

const { values: args } = parseArgs({ options: { lance: { type: "string" }, db: { type: "string" }, players: { type: "string", default: "100000" }, queries: { type: "string", default: "100" } } });
if (!args.lance) throw new Error("--lance <dir> is required");
const db = await lancedb.connect(args.lance);
const t = await db.openTable("memories_g1");
const total = await t.countRows();
const projectId = String((await t.query().select(["projectId"]).limit(1).toArray())[0].projectId);
const meta = JSON.parse(await Bun.file(`${args.lance}/lorehold-vectors.json`).text()) as { embedderId: string; dims: number };
const sqlite = args.db ? openDatabase(args.db) : null;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
let x = 99;
const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
const ways = {
  "LanceDB, project, mind and player (earlier)": (mind: string, player: string) => memoryFilter({ projectId, entityMindId: mind, playerId: player }),
  "LanceDB, player and mind (before)": (mind: string, player: string) => memoryGroupFilter(mind, player),
};
const res = new Map(Object.keys(ways).map((k) => [k, { wall: [] as number[], cpu: [] as number[], rows: 0 }]));
for (let i = 0; i < Number(args.queries); i++) {
  const player = `player${Math.floor(rnd() * Number(args.players))}`;
  const mind = (await t.query().where(`playerId = '${player}'`).select(["entityMindId"]).limit(1).toArray())[0]?.entityMindId;
  if (!mind) continue;
  if (sqlite) {
    const c0 = cpu();
    const t0 = performance.now();
    const group = readMemoryGroup(sqlite, { projectId, mindId: mind, playerId: player }, meta.embedderId, meta.dims);
    const r = res.get("the SQLite copy beside the rows (now)") ?? res.set("the SQLite copy beside the rows (now)", { wall: [], cpu: [], rows: 0 }).get("the SQLite copy beside the rows (now)")!;
    r.wall.push(performance.now() - t0);
    r.cpu.push(cpu() - c0);
    if (!group) throw new Error(`the copy misses a memory of ${player} with ${mind}: fill it first`);
    r.rows += group.rows.length;
  }
  for (const [label, where] of Object.entries(ways)) {
    const c0 = cpu();
    const t0 = performance.now();
    const rows = await t.query().where(where(mind, player)).select([...MEMORY_COLUMNS, "vector"]).toArray();
    const r = res.get(label)!;
    r.wall.push(performance.now() - t0);
    r.cpu.push(cpu() - c0);
    r.rows += rows.filter((row) => row.projectId === projectId).length;
  }
}
console.log(`\n${total.toLocaleString("en")} memories; ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}\n`);
console.log("| filter | reads | rows read | wall p50 / p99 | CPU p50 / p99 |");
console.log("|---|---|---|---|---|");
for (const [label, r] of res) console.log(`| ${label} | ${r.wall.length} | ${r.rows} | ${pct(r.wall, 0.5).toFixed(2)} / ${pct(r.wall, 0.99).toFixed(2)} ms | ${pct(r.cpu, 0.5).toFixed(2)} / ${pct(r.cpu, 0.99).toFixed(2)} ms |`);
