/**
 * The memory checkpoint's cost to the player, on a real fixture model through the server (in process, JSON):
 * each session plays `--turns` turns, the last one reaching `maxSessionLength`, in a started server (the
 * checkpoint kicks the memory-summary job). Side by side in one run:
 *  - answer first (now): the checkpoint turn's reply time, against the session's other turns;
 *  - the summary before the reply (the former order, emulated): that reply time plus the summary's own time
 *    (from the reply to the session's pending row being gone), which is what the checkpoint turn took when it
 *    summarised before answering (on the player's own sequence; the work is the same);
 *  - the player's next turn (a fresh session), sent right after the checkpoint reply while the summary runs.
 *
 *   bun bench/checkpoint.ts [--model smol|gemma] [--sessions 4] [--turns 3] [--threads 1] [--tokens 64]
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { importPack, parsePackText } from "../src/packs/importPack.ts";
import { updateSettings } from "../src/projects/settings.ts";
import { setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { playerPendingSummaries } from "../src/npc/memory/pendingSummaryStore.ts";
import { listMemories } from "../src/npc/memory/memoryAdmin.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { realFixtures } from "../test/realmodel/realFixtures.ts";
import { indexAll } from "./support/indexAll.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string", default: "smol" },
    sessions: { type: "string", default: "4" },
    turns: { type: "string", default: "3" },
    threads: { type: "string", default: "1" },
    tokens: { type: "string", default: "64" },
  },
});
const fx = realFixtures();
if (!fx) {
  console.error("bench/checkpoint: the fixture models are missing; run `sh scripts/fetch-fixtures.sh` first.");
  process.exit(2);
}
const MODELS = { smol: { name: "SmolLM2-135M-Instruct Q4_1", path: fx.smol }, gemma: { name: "Gemma 3 270M (base) Q4_K_M", path: fx.gemma } } as const;
const model = MODELS[args.model as keyof typeof MODELS];
const [sessions, turns, threads, tokens] = [Number(args.sessions), Number(args.turns), Number(args.threads), Number(args.tokens)];

const t = await createTestApp({ model: model.path, modelsDir: fx.modelsDir, threads, parallel: 2, contextSize: 2048, maxReplyTokens: tokens, generationTimeoutMs: 600_000 });
const file = join(import.meta.dir, "..", "examples/thornhaven.yaml");
const pack = parsePackText(readFileSync(file, "utf8"), file);
const r = importPack(t.app.ctx as any, pack, { monthlyCredits: 1_000_000 });
const key = createApiKey(t.app.ctx as any, { projectId: r.projectId, type: "server" }).key;
const mind = r.ids.minds.garrick;
updateSettings(t.app.ctx as any, r.projectId, { maxSessionLength: turns });
setRateLimits(t.app.ctx as any, r.projectId, { perPlayerPerMinute: 10_000, perProjectPerMinute: 10_000 });
await indexAll(t.app);
t.app.scheduler.start();

const LINES = ["Hello! My name is Mara, I came up the north road.", "I owe you 30 gold for the room; I'll pay next week.", "Any news of the missing caravan?", "Goodbye for now."];
const say = async (player: string, text: string) => {
  const t0 = performance.now();
  const res = await t.call("POST", "/v1/npc/interact", { key, body: { text, entityMindId: mind, playerId: player } });
  if (res.status !== 200) throw new Error(`interact ${res.status}: ${JSON.stringify(res.body)}`);
  return { ms: performance.now() - t0, checkpoint: res.body.metadata.memoryCheckpoint === true };
};

const normal: number[] = [];
const checkpoint: number[] = [];
const summary: number[] = [];
const next: number[] = [];
let memories = 0;
for (let s = 0; s < sessions; s++) {
  const player = `bench-${s}`;
  for (let i = 0; i < turns; i++) {
    const turn = await say(player, LINES[i % LINES.length]);
    if (!turn.checkpoint) {
      normal.push(turn.ms);
      continue;
    }
    checkpoint.push(turn.ms);
    const replied = performance.now();
    // The player's next line at once: a fresh session, while the summary runs beside it.
    next.push((await say(player, "What was I saying?")).ms);
    while (playerPendingSummaries(t.app.db, r.projectId, player).length) await Bun.sleep(10);
    summary.push(performance.now() - replied);
  }
  memories += listMemories(t.app.ctx, r.projectId, player).length;
  console.error(`session ${s + 1}/${sessions} done`);
}
await t.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const [n, c, sm, nx] = [median(normal), median(checkpoint), median(summary), median(next)];
console.log(`\n### Memory checkpoint latency (${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"}, ${model.name}, threads ${threads}, parallel 2, ${tokens}-token replies, load average ${loadavg()[0].toFixed(1)})\n`);
console.log("| | median | × a normal turn |");
console.log("|---|---|---|");
console.log(`| normal turn (${normal.length}) | ${s(n)} | 1.00 |`);
console.log(`| checkpoint turn, answer first (now) (${checkpoint.length}) | ${s(c)} | ${(c / n).toFixed(2)} |`);
console.log(`| checkpoint turn, summary before the reply (emulated: reply + summary) | ${s(c + sm)} | ${((c + sm) / n).toFixed(2)} |`);
console.log(`| the player's next turn, sent while the summary runs (${next.length}) | ${s(nx)} | ${(nx / n).toFixed(2)} |`);
console.log(`\nSummary in the background: median ${s(sm)} from the checkpoint reply to its memories stored; ${memories} memories over ${sessions} sessions.`);
