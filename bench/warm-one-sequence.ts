// New players of one mind on a one-sequence server (`parallel: 1`, the shape of a small VPS) that has just started and
// is warming its minds' prompts in the background: how much of each new player's first turn came from the KV cache.
// The demo world (examples/thornhaven.yaml, 7 minds warmed at start), a real fixture model and the MiniLM embedder,
// as scripts/screenshots.ts drives the playground: the same line from a new player every `--gap-ms` after the last reply.
// Then (`--other`, a mind's key, or `first`: the first other mind the server warms) one new player of another mind,
// whose prompt the server warmed in the gaps: a gap shorter than a mind's whole prompt takes to evaluate is a
// server that never idles long enough to finish it.
// Columns: "waited for the sequence" is the turn's wait in the sequence queue (a save pinning the only sequence); "save on the
// turn" the save of an evicted conversation on the turn's path.
// Usage: bun bench/warm-one-sequence.ts [--model qwen|smol] [--players 4] [--gap-ms 1500] [--other first|nan-wicker]   (threads: LOREHOLD_REAL_THREADS, 1)
import { readFileSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { importPack, parsePackText } from "../src/packs/importPack.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { projectOverview } from "../src/studio/services/overview.ts";
import { interact } from "../src/npc/interactService.ts";
import { mostUsedMinds } from "../src/npc/sharedLore/sharedLoreStore.ts";
import type { InteractRequest } from "../src/npc/validateInteract.ts";
import type { InteractDeps } from "../src/core/context.ts";
import type { InteractTiming } from "../src/llm/serverTiming.ts";
import { FIXTURES_DIR, REAL_THREADS, realFixtures } from "../test/realmodel/realFixtures.ts";
import { tempDir, testConfig } from "../test/support/testApp.ts";
import { indexAll } from "./support/indexAll.ts";

const { values: args } = parseArgs({
  options: { model: { type: "string", default: "smol" }, players: { type: "string", default: "4" }, "gap-ms": { type: "string", default: "1500" }, other: { type: "string", default: "" } },
});
const fx = realFixtures() ?? (console.error("the fixture models are missing: sh scripts/fetch-fixtures.sh"), process.exit(1));
const model = args.model === "qwen" ? join(FIXTURES_DIR, "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf") : fx.smol;
const LINE = "How much does the watch pay for news of the caravan?";
const dir = tempDir("lorehold-bench-warm1-");
const config = testConfig(dir, { port: 0, host: "127.0.0.1", model, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads: REAL_THREADS, parallel: 1, generationTimeoutMs: 600_000 });
const load0 = loadavg()[0].toFixed(1);

// The world imported and indexed by a server without the model, then the server the players talk to (it warms the minds at start).
let app = await App.start(config, { logger: silentLogger, loadModel: false });
const world = importPack(app.ctx, parsePackText(readFileSync(join(import.meta.dir, "../examples/thornhaven.yaml"), "utf8"), "thornhaven.yaml"), { monthlyCredits: 1_000_000 });
while (projectOverview(app.ctx, world.projectId).documentsIndexing > 0) {
  await indexAll(app);
  await Bun.sleep(200);
}
await app.stop();
app = await App.start(config, { logger: silentLogger, loadModel: true });
const cpu0 = process.cpuUsage();
console.log(`model ${model.split("/").pop()}, ${REAL_THREADS} thread(s), parallel 1, ${cpus()[0]?.model}, load ${load0}`);
console.log(`gap ${args["gap-ms"]} ms; the last columns are totals since the start (every mind's warm-up)`);
console.log("| new player | mind | prompt tokens | evaluated | reused | waited for the sequence | save on the turn | first token | prefix snapshots saved | warm-up tokens evaluated | warm-up yields |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
// the order the server warms its minds in at start (warmMinds.ts), as keys
const warmOrder = mostUsedMinds(app.ctx.db, 32).map((m) => Object.entries(world.ids.minds).find(([, id]) => id === m.id)![0]);
const other = args.other === "first" ? warmOrder.find((k) => k !== "captain-hesk")! : args.other;
const turns = [...Array.from({ length: Number(args.players) }, () => "captain-hesk"), ...(other ? [other] : [])];
for (const [n, mind] of turns.entries()) {
  const i = n + 1;
  const timing: InteractTiming & { promptTokens?: number; evaluatedPromptTokens?: number; timeToFirstTokenMs?: number } = { generateMs: 0 };
  const req = { text: LINE, entityMindId: world.ids.minds[mind], playerId: `new-player-${i}`, memory: { retrieve: true } } as InteractRequest;
  // The App's context carries the interact path's limiter and metrics (App.ts assigns them to it).
  await interact(app.ctx as InteractDeps, { keyId: "bench", projectId: world.projectId, type: "server" }, req, { timing });
  const prompt = timing.promptTokens ?? 0;
  const evaluated = timing.evaluatedPromptTokens ?? 0;
  const kv = app.ctx.llm!.kvStats()!;
  const ttft = ((timing.timeToFirstTokenMs ?? 0) / 1000).toFixed(2);
  const waited = ((timing.llm?.queueMs ?? 0) / 1000).toFixed(2);
  const saveOnTurn = ((timing.llm?.kvSaveMs ?? 0) / 1000).toFixed(2);
  console.log(`| ${i} | ${mind} | ${prompt} | ${evaluated} | ${prompt - evaluated} | ${waited} s | ${saveOnTurn} s | ${ttft} s | ${kv.prefixSaves} | ${kv.prefixWarmedTokens} | ${kv.prefixWarmYields} |`);
  if (i < turns.length) await Bun.sleep(Number(args["gap-ms"]));
}
const cpu = process.cpuUsage(cpu0);
const kv = app.ctx.llm!.kvStats()!;
// saveHoldMsTotal: the time saves held the sequence (absent on builds that packed while holding it: all of it then)
const hold = (kv as { saveHoldMsTotal?: number }).saveHoldMsTotal;
const perSave = (ms: number) => (ms / Math.max(1, kv.saves)).toFixed(0);
console.log(`conversation saves ${kv.saves} (${perSave(kv.saveMsTotal)} ms each; the sequence held ${hold === undefined ? "all of it" : `${perSave(hold)} ms each`}), on the request path ${kv.evictionSaves}; prefix restores ${kv.prefixRestores}`);
console.log(`process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, load at the end ${loadavg()[0].toFixed(1)}`);
await app.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
