// A turn's world-memory ranking (src/events/worldMemories.ts rankWorldMemories) on a big world, this checkout's
// against another's (`--before <checkout>`), alternated round by round in one process on the same SQLite file
// (read-only), so both meet the same pages: rounds of 10 random minds (of the world's 1,000), each round's minds
// read once first (the query alone, paying the cold pages), then ranked by both in turn, the order swapped each round.
// Usage: bun bench/world-memory-rank.ts --world <folder of bench/preview-overhead.ts, seeded by bench/world-scale.ts> --before <checkout> [--rounds 40]
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { knownEvents } from "../src/events/worldMemoryStore.ts";
import * as now from "../src/events/worldMemories.ts";

const { values: args } = parseArgs({ options: { world: { type: "string" }, before: { type: "string" }, rounds: { type: "string", default: "40" } } });
if (!args.world || !args.before) throw new Error("--world <folder> and --before <checkout> are required");
const before = (await import(resolve(args.before, "src/events/worldMemories.ts"))) as typeof now;
const world = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; minds: string[] };
const db = new Database(join(args.world, "data/lorehold.db"), { readonly: true });
db.exec("PRAGMA cache_size = -32000"); // the server's (src/db/openDatabase.ts)
const ctx = { db, clock: { now: () => new Date() } } as never;
const LINES = ["Tell me about the harbour and the lantern.", "Who guards the north gate at night?", "What do you know of the salt debt?", "Have you seen the ferryman?", "What happened at the mill?"];
let x = 99;
const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const total = { query: 0, before: 0, now: 0 };
let n = 0;
for (let round = 0; round < Number(args.rounds); round++) {
  const minds = Array.from({ length: 10 }, () => world.minds[Math.floor(rnd() * world.minds.length)]);
  const query = LINES[round % LINES.length];
  let c = cpu();
  for (const m of minds) knownEvents(db, world.projectId, m, new Date().toISOString(), now.WORLD_MEMORY_CANDIDATES);
  total.query += cpu() - c;
  for (const v of round % 2 ? (["before", "now"] as const) : (["now", "before"] as const)) {
    const rank = v === "now" ? now.rankWorldMemories : before.rankWorldMemories;
    c = cpu();
    for (const m of minds) rank(ctx, { projectId: world.projectId, mindId: m, query, limit: now.WORLD_MEMORIES_PER_TURN });
    total[v] += cpu() - c;
  }
  n += minds.length;
}
console.log(
  `rankWorldMemories, CPU a ranking (${n} each, load ${loadavg()[0].toFixed(1)}): before ${(total.before / n).toFixed(2)} ms, now ${(total.now / n).toFixed(2)} ms, ` +
    `now ÷ before ${(total.now / total.before).toFixed(2)}; the candidates' read alone, on cold pages ${(total.query / n).toFixed(2)} ms`,
);
