// A turn's world-memory ranking (src/events/worldMemories.ts rankWorldMemories) on a big world, this checkout's
// against another's (`--before <checkout>`), alternated round by round in one process on the same SQLite file
// (read-only): each round draws 10 random minds (of the world's 1,000) for each version, ranks them once on pages the
// 32 MB cache most likely does not hold (a mind's first turn in a while, as on a busy server), then again at once
// (warm), the versions' order swapped each round.
// The file must have been opened once by this checkout's server (its migrations applied, the world-memory-words job
// run to the end: `--prepare` does both on the file given, which must then be a copy); the other checkout's code
// runs on the same migrated file (its indexes keep their names; it never reads the words).
// Usage: bun bench/world-memory-rank.ts --world <folder of bench/preview-overhead.ts, seeded by bench/world-scale.ts> --before <checkout> [--rounds 40] [--prepare]
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openDatabase } from "../src/db/openDatabase.ts";
import * as now from "../src/events/worldMemories.ts";
import { fillWorldMemoryWords } from "../src/events/worldMemoryWords.ts";

const { values: args } = parseArgs({ options: { world: { type: "string" }, before: { type: "string" }, rounds: { type: "string", default: "40" }, prepare: { type: "boolean", default: false } } });
if (!args.world || !args.before) throw new Error("--world <folder> and --before <checkout> are required");
const path = join(args.world, "data/lorehold.db");
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
if (args.prepare) {
  const c = cpu();
  const rw = openDatabase(path);
  const m = cpu();
  const { filled } = await fillWorldMemoryWords({ db: rw });
  rw.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  rw.close();
  console.log(`prepared: migrations ${((m - c) / 1000).toFixed(1)} s of CPU, ${filled} world memories' words filled in ${((cpu() - m) / 1000).toFixed(1)} s of CPU`);
}
const before = (await import(resolve(args.before, "src/events/worldMemories.ts"))) as typeof now;
const world = JSON.parse(readFileSync(join(args.world, "world.json"), "utf8")) as { projectId: string; minds: string[] };
const db = new Database(path, { readonly: true });
db.exec("PRAGMA cache_size = -32000"); // the server's (src/db/openDatabase.ts)
const ctx = { db, clock: { now: () => new Date() } } as never;
const LINES = ["Tell me about the harbour and the lantern.", "Who guards the north gate at night?", "What do you know of the salt debt?", "Have you seen the ferryman?", "What happened at the mill?"];
let x = 99;
const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
const total = { before: { cold: 0, warm: 0 }, now: { cold: 0, warm: 0 } };
let n = 0;
for (let round = 0; round < Number(args.rounds); round++) {
  const query = LINES[round % LINES.length];
  for (const v of round % 2 ? (["before", "now"] as const) : (["now", "before"] as const)) {
    const rank = v === "now" ? now.rankWorldMemories : before.rankWorldMemories;
    const minds = Array.from({ length: 10 }, () => world.minds[Math.floor(rnd() * world.minds.length)]);
    for (const pass of ["cold", "warm"] as const) {
      const c = cpu();
      for (const m of minds) rank(ctx, { projectId: world.projectId, mindId: m, query, limit: now.WORLD_MEMORIES_PER_TURN });
      total[v][pass] += cpu() - c;
    }
  }
  n += 10;
}
const f = (ms: number) => (ms / n).toFixed(2);
console.log(
  `rankWorldMemories, CPU a ranking (${n} each, load ${loadavg()[0].toFixed(1)}): a mind's first in a while: before ${f(total.before.cold)} ms, now ${f(total.now.cold)} ms, ` +
    `now ÷ before ${(total.now.cold / total.before.cold).toFixed(2)}; the same again at once: before ${f(total.before.warm)} ms, now ${f(total.now.warm)} ms, now ÷ before ${(total.now.warm / total.before.warm).toFixed(2)}`,
);
