/**
 * The world's history in packs, and what merging repeated events costs recording, in one run.
 *
 *   bun bench/eventHistory.ts [--events 1000]
 *
 *  - recording (recordEvents, the service POST /v1/events runs: one transaction per batch of 100), each event seen
 *    by the 50 minds of a square: events of one type (many recent events of that type in the merge window)
 *    against events of distinct types, and events that repeat (every witness merges); and the check alone;
 *  - a pack of that history (`--events` events × 50 witnesses): export, YAML text size, import into a new
 *    project, and an unchanged re-import (which writes nothing).
 * Wall times are noisy on a shared machine: CPU time (this process's user + system) is given beside them.
 */
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { rmSync } from "node:fs";
import { App } from "../src/app/App.ts";
import { ManualClock } from "../src/core/clock.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { recordEvents } from "../src/events/recordEvents.ts";
import { mergeRepeat, repeatedEvents } from "../src/events/mergeWorldMemory.ts";
import { mindRows } from "../src/lore/minds/mindStore.ts";
import { exportPack, serializePack } from "../src/packs/exportPack.ts";
import { importPack, parsePackText } from "../src/packs/importPack.ts";
import { tempDir, testConfig } from "../test/support/testApp.ts";

const { values: args } = parseArgs({ options: { events: { type: "string", default: "1000" } } });
const EVENTS = Number(args.events);
const MINDS = 50;

let seed = 7;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const WORDS = "bridge mill fire thief guard baker harbour storm wolf caravan gold debt wedding feast duel omen ship plague rumour letter".split(" ");
const sentence = () => Array.from({ length: 10 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");

const dir = tempDir("lorehold-bench-history-");
const clock = new ManualClock(new Date("2026-03-01T08:00:00.000Z"));
const app = await App.create(testConfig(dir, { embeddingModel: "hashing", threads: 1 }), { clock, logger: silentLogger, loadModel: false, embedder: new HashingEmbedder() });
const load0 = loadavg()[0];

const village = (name: string) =>
  importPack(app.ctx, {
    project: { name },
    tags: [{ name: "village" }],
    locations: [{ key: "square", name: "Square" }],
    minds: Array.from({ length: MINDS }, (_, i) => ({ key: `m${i}`, entityName: `Villager ${i}`, personality: "A villager.", location: "square", knowledgeTags: ["village"] })),
  }).projectId;

/** Wall and CPU ms of `fn`. */
async function timed(fn: () => Promise<unknown> | unknown): Promise<{ wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const c = process.cpuUsage(c0);
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}

/** Records `n` events in batches of 100, a second of game clock apart (all inside one merge window). */
async function ingest(projectId: string, n: number, make: (i: number) => { type: string; description: string }) {
  return timed(async () => {
    for (let i = 0; i < n; i += 100) {
      const batch = Array.from({ length: Math.min(100, n - i) }, (_, j) => ({ ...make(i + j), witnesses: "location" as const, location: "Square", importance: 1 + ((i + j) % 10) }));
      await recordEvents(app.ctx, projectId, batch as any, true);
      clock.advance(100_000);
    }
  });
}

const N = Math.min(EVENTS, 500);
const oneTypeProject = village("One type");
const oneType = await ingest(oneTypeProject, N, () => ({ type: "news", description: sentence() }));
// the merge check alone, as recording runs it for each witness of an event of that type (a miss: nothing written)
const minds = mindRows(app.db, oneTypeProject).map((m) => m.id);
const checkOnly = await timed(() => {
  const at = clock.now().toISOString();
  for (let i = 0; i < N; i++) {
    const repeated = repeatedEvents(app.db, oneTypeProject, { type: "news", description: `no such line ${i}`, at });
    for (const mindId of minds) mergeRepeat(app.db, mindId, repeated, 5);
  }
});
const distinct = await ingest(village("Distinct"), N, (i) => ({ type: `news${i}`, description: sentence() }));
const repeats = await ingest(village("Repeats"), N, (i) => ({ type: "news", description: `The bell rang ${i % 5}` }));

// ---- a pack of the history
const source = village("History");
await ingest(source, EVENTS, (i) => ({ type: `t${i % 20}`, description: sentence() }));
let pack: ReturnType<typeof exportPack> | null = null;
const exp = await timed(() => (pack = exportPack(app.ctx, source)));
const text = serializePack(pack!, "yaml");
const parsed = parsePackText(text, "history.yaml") as any;
parsed.project.name = "Copy";
let copy = "";
const imp = await timed(() => (copy = importPack(app.ctx, parsed).projectId));
const again = await timed(() => importPack(app.ctx, parsePackText(text, "history.yaml") as any, { projectId: copy }));
const knowers = (app.db.query("SELECT COUNT(*) AS n FROM world_memories WHERE project_id = ?").get(copy) as { n: number }).n;

const perEvent = (t: { wall: number; cpu: number }, n: number) => `${(t.wall / n).toFixed(2)} ms wall; CPU ${(t.cpu / n).toFixed(2)} ms`;
console.log(`machine: ${cpus()[0]?.model} (${availableParallelism()} cores), load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}; Bun ${Bun.version}`);
console.log(`recording, ${N} events × ${MINDS} witnesses, per event:`);
console.log(`  distinct types (merge check finds nothing)      ${perEvent(distinct, N)}`);
console.log(`  one type (many recent events of the type)       ${perEvent(oneType, N)}  (CPU ${(oneType.cpu / distinct.cpu).toFixed(2)}× distinct)`);
console.log(`  the merge check alone (one type, a miss)        ${perEvent(checkOnly, N)}  (CPU ${(checkOnly.cpu / oneType.cpu).toFixed(2)}× recording one)`);
console.log(`  repeats (every witness merges)                  ${perEvent(repeats, N)}  (CPU ${(repeats.cpu / distinct.cpu).toFixed(2)}× distinct)`);
console.log(`pack of ${EVENTS} events, ${knowers} world memories (${(text.length / 1024).toFixed(0)} KiB of YAML):`);
console.log(`  export                ${exp.wall.toFixed(0)} ms wall; CPU ${exp.cpu.toFixed(0)} ms`);
console.log(`  import, new project   ${imp.wall.toFixed(0)} ms wall; CPU ${imp.cpu.toFixed(0)} ms`);
console.log(`  unchanged re-import   ${again.wall.toFixed(0)} ms wall; CPU ${again.cpu.toFixed(0)} ms  (CPU ${(again.cpu / imp.cpu).toFixed(2)}× import)`);

await app.stop();
rmSync(dir, { recursive: true, force: true });
