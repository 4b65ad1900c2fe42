// Warm conversations (issue 14): KV snapshots on disk against conversations that stay resident and
// against today's eviction, side by side in one run, through the server (in process, SSE).
// Random-weight model with a real model's shape (speed only; the words are noise).
// Usage: bun bench/warm.ts [--shape qwen0.5b|llama3.2-1b] [--type q8_0] [--threads 2] [--players 6] [--parallel 2] [--turns 5] [--new 3]
//        [--phases all|new|players] [--ticks 1] [--step-seconds 60]   (new: only a new player's first turn on a known mind, with and without the shared-lore level;
//                                      players: only the round robin, its newcomers and the shared-lore re-choices)
// The round robin ticks each server's mind-warm job once per step (a server ticks it every 5 s; a turn here takes seconds), so
// the shared-lore level is re-chosen, and minds re-warmed, as a running server would. The servers' clock moves
// `--step-seconds` per step (players pause between lines; the re-choice rule counts minutes), whatever the machine's
// speed. Each round a new player joins the warm
// mind while another mind's changed prompt is being warmed in the background, and the same line is run fully cold.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { loadConfig, type Config } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { ManualClock } from "../src/core/clock.ts";
import { importPack, parsePackText } from "../src/packs/importPack.ts";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { readMinds } from "../src/lore/minds/readMinds.ts";
import { updateMind } from "../src/lore/minds/writeMinds.ts";
import { setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { modelShape } from "./support/modelShapes.ts";
import { mindStaticPrompt } from "../src/npc/warmMinds.ts";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { loadMindProfile } from "../src/npc/mindProfile.ts";
import { chooseSharedLore, selectSharedLore } from "../src/npc/sharedLore/sharedLore.ts";
import { hitsOf, readSelection, recordHits, totalHits } from "../src/npc/sharedLore/sharedLoreStore.ts";
import { rechoiceVerdict, rechoiceWait } from "../src/npc/sharedLore/rechoice.ts";
import { tinyGgufParameterCount, writeTinyGguf, type TinyGgufWeightType } from "../test/support/tinyGguf.ts";

const { values: args } = parseArgs({
  options: {
    shape: { type: "string", default: "qwen0.5b" },
    type: { type: "string", default: "q8_0" },
    threads: { type: "string", default: "2" },
    players: { type: "string", default: "6" },
    parallel: { type: "string", default: "2" },
    turns: { type: "string", default: "5" },
    new: { type: "string", default: "3" },
    reply: { type: "string", default: "8" },
    phases: { type: "string", default: "all" },
    known: { type: "string", default: "20" },
    ticks: { type: "string", default: "1" },
    "step-seconds": { type: "string", default: "60" },
  },
});
const threads = Number(args.threads);
const loadAtStart = loadavg().map((x) => x.toFixed(1)).join(" ");
/** The servers' clock: real time, plus `--step-seconds` for every round-robin step. */
const clock = new (class extends ManualClock {
  private skipped = 0;
  now(): Date {
    return new Date(Date.now() + this.skipped);
  }
  advance(ms: number): void {
    this.skipped += ms;
  }
})();
const players = Array.from({ length: Number(args.players) }, (_, i) => `player-${i}`);
const parallel = Number(args.parallel);
const turns = Number(args.turns);
const replyTokens = Number(args.reply);
const { label: shapeLabel, ...picked } = modelShape(args.shape);
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] : NaN);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const f = (x: number, d = 2) => x.toFixed(d);

const pack = readFileSync(join(import.meta.dir, "../examples/thornhaven.yaml"), "utf8");
const ROUND_ROBIN_TAGS = ["tavern", "town-history", "general", "quests", "river-trade"];
const LINES = [
  "Tell me what you saw on the river road last night, and who was with you.",
  "And then? What happened after that?",
  "Who keeps the mill by the marsh, and what do they owe the ferryman?",
  "Where would you go if the bridge were closed tomorrow?",
  "What do the guards say about the smugglers these days?",
  "Is there anything else I should know before I leave town?",
];
// As in bench/interact.ts: the world's words are single pieces of the random model's vocab, as common
// English words are in a real model's (byte-level prompts would be ~3× longer than a real model's).
const promptSources = ["../src/npc/prompt/systemPrompt.ts", "../src/npc/prompt/renderTurn.ts"].map((p) => readFileSync(join(import.meta.dir, p), "utf8"));
const vocabWords = [...new Set([pack, ...LINES, ...players, ...promptSources].join(" ").match(/[A-Za-z][A-Za-z']*/g) ?? [])];
const shape = { ...picked, nCtx: 2048, weightType: args.type as TinyGgufWeightType, name: `bench-${args.shape}`, extraWords: vocabWords };

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-warm-"));
const modelPath = join(dir, "bench.gguf");
writeTinyGguf(modelPath, shape);

interface Server {
  name: string;
  config: Config;
  app: App;
  key: string;
  projectId: string;
  minds: string[];
}

function configFor(name: string, flags: Partial<Config>): Config {
  return loadConfig({
    cwd: dir,
    env: {},
    flags: { dataDir: join(dir, name), modelsDir: dir, model: modelPath, threads, contextSize: 2048, maxReplyTokens: replyTokens, logLevel: "silent", port: 0, generationTimeoutMs: 600_000, ...flags },
  });
}

async function boot(name: string, config: Config, existing?: Omit<Server, "app" | "config" | "name">): Promise<Server> {
  const app = existing ? await App.start(config, { logger: silentLogger, clock }) : await App.create(config, { logger: silentLogger, clock });
  if (existing) return { name, config, app, ...existing };
  const { projectId } = importPack(app.ctx, parsePackText(pack, "thornhaven.yaml"));
  const key = createApiKey(app.ctx, { projectId, type: "server" }).key;
  setRateLimits(app.ctx, projectId, { perPlayerPerMinute: 100000, perProjectPerMinute: 100000 });
  const minds = readMinds(app.ctx, projectId, { onlyWithTags: true }).map((m) => m.id);
  // Greedy and a fixed reply cap: every server sees the same prompts turn after turn.
  for (const m of minds) updateMind(app.ctx, projectId, m, { responseConfig: { maxTokens: replyTokens, temperature: 0 } });
  // The round robin's mind sees 8 of the pack's documents (more than a turn retrieves, more than the shared level
  // holds), so which of its chunks are retrieved most varies with the questions, as on a mind with a real world.
  updateMind(app.ctx, projectId, minds[0], { knowledgeTags: ROUND_ROBIN_TAGS });
  for (;;) {
    const r = (await app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
    if (!r || r.indexed === 0) break;
  }
  // Minds are warmed at start by App.start; these apps were created before their world existed.
  if (app.ctx.llm && config.kvSnapshots === "on") {
    const { warmKnownMinds } = await import("../src/npc/warmMinds.ts");
    warmKnownMinds(app.ctx, app.ctx.llm);
    await app.ctx.llm.kvIdle();
  }
  return { name, config, app, key, projectId, minds };
}

interface Turn {
  ttftMs: number;
  evaluated: number;
  promptTokens: number;
  timing: Record<string, number>;
  source: string;
}

const evaluatedSoFar = async (s: Server) => Number(/^lorehold_prompt_tokens_evaluated_total (\d+)/m.exec(await s.app.metrics.text())?.[1] ?? NaN);
const promptSoFar = async (s: Server) => Number(/^lorehold_prompt_tokens_total (\d+)/m.exec(await s.app.metrics.text())?.[1] ?? NaN);

/** One streamed turn, in process: time to the first token event, prompt tokens evaluated (the server's counter). */
async function turn(s: Server, playerId: string, text: string, mindId = s.minds[0]): Promise<Turn> {
  const [e0, p0] = [await evaluatedSoFar(s), await promptSoFar(s)];
  const t0 = performance.now();
  const res = await s.app.handle(
    new Request("http://localhost/v1/npc/interact", {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ text, entityMindId: mindId, playerId }),
    }),
  );
  if (res.status !== 200) throw new Error(`${s.name}: interact ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let firstAt = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    if (!firstAt && buf.includes("event: token")) firstAt = performance.now();
  }
  if (!firstAt) firstAt = performance.now();
  await s.app.ctx.llm!.kvIdle(); // background saves land between turns, as on a server with pauses between lines
  const header = res.headers.get("server-timing") ?? "";
  const timing: Record<string, number> = {};
  for (const m of header.matchAll(/([\w-]+);(?:desc="[^"]*";)?dur=([\d.]+)/g)) timing[m[1]] = Number(m[2]);
  return {
    ttftMs: firstAt - t0,
    evaluated: (await evaluatedSoFar(s)) - e0,
    promptTokens: (await promptSoFar(s)) - p0,
    timing,
    source: /kv-restore;desc="(\w+)"/.exec(header)?.[1] ?? "?",
  };
}

// Each player asks something else at each turn (other lore comes in), as players do.
const lineOf = (player: string, t: number) => {
  const i = Math.max(0, players.indexOf(player));
  return `${LINES[(i + t) % LINES.length]} (${player}, turn ${t + 1})`;
};

// W: snapshots on, `parallel` sequences. R: every conversation resident (one sequence each), no
// snapshots. B: today without snapshots, `parallel` sequences (evicted conversations re-evaluated).
// W0 and B0: W and B without the shared-lore level (sharedLoreTokens 0: the mind prefix is the system text only).
const all = args.phases === "all";
const roundRobin = all || args.phases === "players";
const newPhase = all || args.phases === "new";
const W = await boot("warm", configFor("warm", { parallel, kvSnapshots: "on" }));
const B = await boot("baseline", configFor("baseline", { parallel, kvSnapshots: "off" }));
const W0 = newPhase ? await boot("warm-noshared", configFor("warm-noshared", { parallel, kvSnapshots: "on", sharedLoreTokens: 0 })) : null;
const B0 = newPhase ? await boot("baseline-noshared", configFor("baseline-noshared", { parallel, kvSnapshots: "off", sharedLoreTokens: 0 })) : null;
// Resident: a sequence for every player and every newcomer of the round robin, so nobody is ever evicted.
const R = roundRobin ? await boot("resident", configFor("resident", { parallel: players.length + 2 * turns, kvSnapshots: "off" })) : null;

// ---- 1. round robin: 3× more players than sequences, `turns` turns each (alternating servers per turn). After each
// step every server's mind-warm job ticks (`--ticks` times) — in step on all three, so their shared-lore choices (made
// from the same retrievals) stay the same and so do their prompts. After each round a newcomer joins the warm mind.
const rows: { t: number; w: Turn; r: Turn; b: Turn }[] = [];
const newcomers: { t: number; w: Turn; cold: Turn; r: Turn; quiet: Turn }[] = [];
const choices = new Map<string, { step: number; ids: string }[]>();
let steps = 0;
const choiceOf = (s: Server) => JSON.stringify(readSelection(s.app.db, s.projectId, s.minds[0])?.chunkIds ?? null);
const noteChoices = () => {
  for (const s of roundRobin ? [W, R!, B] : []) {
    const list = choices.get(s.name) ?? [];
    const ids = choiceOf(s);
    if (list.at(-1)?.ids !== ids) list.push({ step: steps, ids });
    choices.set(s.name, list);
  }
};
const verdicts: string[] = [];
let ticksSoFar = 0;
const tickAll = async () => {
  clock.advance(Number(args["step-seconds"]) * 1000);
  for (let k = 0; k < Number(args.ticks); k++) {
    // The warm job asks the counts every 12th tick (warmMinds.ts): what the rule says then, on the warm server.
    if (++ticksSoFar % 12 === 0) verdicts.push(rechoiceVerdictNow(W));
    for (const s of [W, R!, B]) await s.app.scheduler.trigger("mind-warm");
  }
  steps++;
  noteChoices();
};
// The round robin's mind chosen on all three at the same moment, so their choices age alike (rechoice.ts waits 10 minutes).
for (const s of roundRobin ? [W, R!, B] : []) selectSharedLore(s.app.ctx, s.projectId, loadMindProfile(s.app.ctx, s.projectId, s.minds[0]));
if (roundRobin) W.app.ctx.llm!.warmMind(mindStaticPrompt(W.app.ctx, W.projectId, W.minds[0])!);
await W.app.ctx.llm!.kvIdle();
noteChoices();
// Another mind's prompt, changed (as by an author's edit), so that its warm-up runs in the background while the newcomer speaks.
const editedPrompt = (t: number) => `${mindStaticPrompt(W.app.ctx, W.projectId, W.minds[1 + (t % (W.minds.length - 1))])}\n\n(Revised ${t + 1}.)`;
for (let t = 0; roundRobin && t < turns; t++) {
  for (const p of players) {
    const w = await turn(W, p, lineOf(p, t));
    const r = await turn(R!, p, lineOf(p, t));
    const b = await turn(B, p, lineOf(p, t));
    rows.push({ t, w, r, b });
    await tickAll();
  }
  const who = `newcomer-rr-${t}`;
  const line = lineOf(who, t);
  W.app.ctx.llm!.warmMind(editedPrompt(t)); // in the background; the newcomer's turn must not wait for it
  const w = await turn(W, who, line);
  // Fully cold: the same line, prompt and shared lore (B made the same choices), nothing cached in any sequence.
  B.app.ctx.llm!.forgetConversations(() => true);
  await Bun.sleep(20); // the sequences' clearing runs under the context's lock
  const cold = await turn(B, who, line);
  const r = await turn(R!, who, line);
  // Control: another newcomer with the same line on the warm server, no warm-up in the background.
  const quiet = await turn(W, `${who}-quiet`, line);
  await turn(B, `${who}-quiet`, line); // the same on the other two, so all three keep the same retrieval counts
  await turn(R!, `${who}-quiet`, line);
  newcomers.push({ t, w, cold, r, quiet });
  await tickAll();
}
const returning = rows.filter((x) => x.t > 0);
const evalRatio = sum(returning.map((x) => x.w.evaluated)) / sum(returning.map((x) => x.r.evaluated));
const baseRatio = sum(returning.map((x) => x.b.evaluated)) / sum(returning.map((x) => x.r.evaluated));
const ttftW = median(returning.map((x) => x.w.ttftMs));
const ttftR = median(returning.map((x) => x.r.ttftMs));
const ttftB = median(returning.map((x) => x.b.ttftMs));
const sources = returning.reduce<Record<string, number>>((acc, x) => ((acc[x.w.source] = (acc[x.w.source] ?? 0) + 1), acc), {});
const parts = ["retrieval", "tokenize", "queue", "kv-save", "kv-restore", "eval", "sample", "flush"];
const breakdownOf = (turns: Turn[]) => parts.map((k) => median(turns.map((x) => x.timing[k] ?? 0)));
const breakdown = (pick: (x: (typeof rows)[number]) => Turn) => breakdownOf(returning.map(pick));
const byRound = (t: number, pick: (x: (typeof rows)[number]) => Turn) => median(rows.filter((x) => x.t === t).map((x) => pick(x).evaluated));
const rrNew = median(newcomers.map((x) => x.w.ttftMs / x.cold.ttftMs));
const rrNewEval = median(newcomers.map((x) => x.w.evaluated / x.cold.evaluated));
const rrQuiet = median(newcomers.map((x) => x.quiet.ttftMs / x.cold.ttftMs));
// Time to the first token per prompt token evaluated, against the cold turn's: 1 when nothing but its own tokens delayed it
// (which sequence a newcomer inherits from changes how many it evaluates; this does not depend on that).
const perToken = (a: Turn, cold: Turn) => a.ttftMs / Math.max(1, a.evaluated) / (cold.ttftMs / Math.max(1, cold.evaluated));
const rrPerToken = median(newcomers.map((x) => perToken(x.w, x.cold)));
const rrQuietPerToken = median(newcomers.map((x) => perToken(x.quiet, x.cold)));
const rrQuietEval = median(newcomers.map((x) => x.quiet.evaluated / x.cold.evaluated));

// ---- 2. a new player's first turn on a known mind (prefix snapshot) ÷ fully cold (a mind nobody spoke to),
// with the shared-lore level (W ÷ B) and without it (W0 ÷ B0, last session's design)
const newPairs: { w: Turn; b: Turn; w0: Turn; b0: Turn }[] = [];
for (let i = 0; newPhase && i < Number(args.new); i++) {
  const mind = (i + 1) % W.minds.length;
  const who = `newcomer-${i}`;
  const line = lineOf(who, 0);
  newPairs.push({ w: await turn(W, who, line, W.minds[mind]), b: await turn(B, who, line, B.minds[mind]), w0: await turn(W0!, who, line, W0!.minds[mind]), b0: await turn(B0!, who, line, B0!.minds[mind]) });
}
await W0?.app.stop();
await B0?.app.stop();

// ---- 2b. the same on minds with a history: `--known` earlier players asked other things (LINES[1..]) of each
// mind; their retrievals are what the mind's "most retrieved" counts hold (recorded by the same path a turn
// takes: prepareTurn's retrieval, then recordHits; generation adds nothing to the counts). The warm job then
// selects the shared lore again and warms the new prefix (done here directly, as its hits check would).
const historyPairs: { w: Turn; b: Turn }[] = [];
for (let i = 0; newPhase && i < Number(args.new); i++) {
  const mind = (i + 1 + Number(args.new)) % W.minds.length;
  for (const s of [W, B]) {
    for (let k = 0; k < Number(args.known); k++) {
      const req = validateInteract({ text: `${LINES[1 + (k % (LINES.length - 1))]} (earlier player ${k})`, entityMindId: s.minds[mind], playerId: `earlier-${k}` });
      const p = await prepareTurn(s.app.ctx, s.projectId, req);
      recordHits(s.app.db, s.projectId, s.minds[mind], p.retrieved);
    }
    selectSharedLore(s.app.ctx, s.projectId, loadMindProfile(s.app.ctx, s.projectId, s.minds[mind]));
  }
  W.app.ctx.llm!.warmMind(mindStaticPrompt(W.app.ctx, W.projectId, W.minds[mind])!);
  await W.app.ctx.llm!.kvIdle();
  const who = `newcomer-known-${i}`;
  const line = lineOf(who, 0);
  historyPairs.push({ w: await turn(W, who, line, W.minds[mind]), b: await turn(B, who, line, B.minds[mind]) });
}
const histEval = median(historyPairs.map((p) => p.w.evaluated / p.b.evaluated));
const histTtft = median(historyPairs.map((p) => p.w.ttftMs / p.b.ttftMs));
const newEval = median(newPairs.map((p) => p.w.evaluated / p.b.evaluated));
const newTtft = median(newPairs.map((p) => p.w.ttftMs / p.b.ttftMs));
const newEval0 = median(newPairs.map((p) => p.w0.evaluated / p.b0.evaluated));
const newTtft0 = median(newPairs.map((p) => p.w0.ttftMs / p.b0.ttftMs));
const newEvalVsOld = median(newPairs.map((p) => p.w.evaluated / p.b0.evaluated));
const newTtftVsOld = median(newPairs.map((p) => p.w.ttftMs / p.b0.ttftMs));
// What the newcomer's turn still evaluated: the static prompt's tokens (shared lore included) against the prompt.
const staticTokens = (s: Server, mindId: string) => {
  return s.app.ctx.llm!.countChatTokens([{ role: "system", content: mindStaticPrompt(s.app.ctx, s.projectId, mindId)! }]);
};

// ---- 3. restart of the warm server: every player returns once more
const kvBefore = W.app.ctx.llm!.kvStats()!;
const staticW = newPairs.map((_, i) => staticTokens(W, W.minds[(i + 1) % W.minds.length]));
await W.app.stop();
const W2 = all ? await boot("warm-restarted", W.config, { key: W.key, projectId: W.projectId, minds: W.minds }) : null;
await W2?.app.ctx.llm!.kvIdle();
const after: { w: Turn; r: Turn }[] = [];
for (const p of all ? players : []) after.push({ w: await turn(W2!, p, lineOf(p, turns)), r: await turn(R!, p, lineOf(p, turns)) });
const restartEval = sum(after.map((x) => x.w.evaluated)) / sum(after.map((x) => x.r.evaluated));
const restartTtft = median(after.map((x) => x.w.ttftMs)) / median(after.map((x) => x.r.ttftMs));
const kv2 = W2?.app.ctx.llm!.kvStats() ?? null;
const plus = (k: "saves" | "savedBytes" | "saveMsTotal" | "restores" | "restoredBytes" | "restoreMsTotal" | "evictionSaves") => kvBefore[k] + (kv2?.[k] ?? 0);
const kvAll = {
  saves: plus("saves"),
  savedBytes: plus("savedBytes"),
  saveMs: plus("saveMsTotal"),
  restores: plus("restores"),
  restoredBytes: plus("restoredBytes"),
  restoreMs: plus("restoreMsTotal"),
  evictionSaves: plus("evictionSaves"),
};
const store = (kv2 ?? kvBefore).store;
const convTokens = median(after.map((x) => x.w.promptTokens));
await W2?.app.stop();
await R?.app.stop();
await B.app.stop();
rmSync(dir, { recursive: true, force: true });

const MB = 1024 * 1024;
const params = tinyGgufParameterCount(shape);
console.log(`\n### Warm conversations — ${shapeLabel} shape — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown CPU"}), load at the end ${loadavg().map((x) => x.toFixed(1)).join(" ")} (at the start ${loadAtStart}); Bun ${Bun.version}; threads ${threads}, 2,048 context, replies ${replyTokens} tokens (greedy).`);
console.log(`Model: random-weight llama with the shape of ${shapeLabel} (n_embd ${shape.nEmbd}, ${shape.nLayers} layers, ${shape.nHeadsKv} KV heads, vocab ${shape.vocabSize}), ${shape.weightType}, ${(params / 1e6).toFixed(0)}M parameters.`);
if (roundRobin) console.log(`Servers side by side, one turn each in turn: **warm** (snapshots on, ${parallel} sequences), **resident** (${players.length + 2 * turns} sequences: nobody is ever evicted), **today** (snapshots off, ${parallel} sequences). ${players.length} players × ${turns} rounds, round robin, on one mind (tags ${ROUND_ROBIN_TAGS.join(", ")}: 8 documents); each server's mind-warm job ticked ${args.ticks}× after every step; after each round a newcomer's first turn on that mind, while another mind's changed prompt warms in the background, against the same line fully cold (today's server with its sequences cleared).\n`);
else console.log(`Servers side by side: **warm** (snapshots on, ${parallel} sequences) and **today** (snapshots off); the new-player rows also run both without the shared-lore level.\n`);
console.log("| measure | figure | target |");
console.log("|---|---|---|");
if (roundRobin) console.log(`| new player's first turn on the warm mind ÷ the same turn fully cold (median of ${newcomers.length} rounds): first token; prompt tokens | ${newcomers.map((x) => `${f(x.w.ttftMs, 0)}÷${f(x.cold.ttftMs, 0)}`).join(", ")} ms = **${f(rrNew)}**; ${newcomers.map((x) => `${x.w.evaluated}÷${x.cold.evaluated}`).join(", ")} = **${f(rrNewEval)}** | ≤ 0.5 |`);
if (roundRobin) console.log(`| the same newcomer line again, no warm-up in the background (control) ÷ fully cold: first token; prompt tokens | ${newcomers.map((x) => `${f(x.quiet.ttftMs, 0)}÷${f(x.cold.ttftMs, 0)}`).join(", ")} ms = **${f(rrQuiet)}**; ${newcomers.map((x) => `${x.quiet.evaluated}÷${x.cold.evaluated}`).join(", ")} = **${f(rrQuietEval)}** | |`);
if (roundRobin) console.log(`| first token per prompt token evaluated, ÷ the cold turn's (1: nothing but its own tokens delayed it): newcomer with a warm-up in the background; control | ${newcomers.map((x) => f(perToken(x.w, x.cold))).join(", ")} = **${f(rrPerToken)}**; ${newcomers.map((x) => f(perToken(x.quiet, x.cold))).join(", ")} = **${f(rrQuietPerToken)}** | |`);
function rechoiceVerdictNow(s: Server): string {
  const sel = readSelection(s.app.db, s.projectId, s.minds[0]);
  if (!sel) return "none";
  const input = { totalHits: totalHits(s.app.db, s.projectId, s.minds[0]), hitsAt: sel.hitsAt, sinceMs: clock.now().getTime() - Date.parse(sel.computedAt) };
  const wait = rechoiceWait(input);
  if (wait) return wait;
  const candidate = chooseSharedLore(s.app.ctx, s.projectId, loadMindProfile(s.app.ctx, s.projectId, s.minds[0]));
  const hits = hitsOf(s.app.db, s.projectId, s.minds[0], [...new Set([...sel.chunkIds, ...candidate])]);
  return rechoiceVerdict({ ...input, current: sel.chunkIds, candidate, hits });
}
const listChoices = (name: string) => {
  const list = choices.get(name) ?? [];
  return `**${list.length}** (at step${list.length > 1 ? "s" : ""} ${list.map((c) => c.step).join(", ")})`;
};
if (roundRobin) console.log(`| shared-lore choices of the mind during the run, the first one included: warm; resident; today | ${listChoices(W.name)}; ${listChoices(R!.name)}; ${listChoices(B.name)} of ${steps} steps, ${args["step-seconds"]} s apart; the warm job's retrieval-count checks said: ${verdicts.join(", ") || "(none)"} | 1 |`);
if (roundRobin) console.log(`| prompt tokens evaluated by a returning player's turn ÷ by a resident follow-up (rounds 2–${turns}, sums) | ${sum(returning.map((x) => x.w.evaluated))} ÷ ${sum(returning.map((x) => x.r.evaluated))} = **${f(evalRatio)}** (today: ${f(baseRatio)}) | ≤ 1.3 |`);
if (roundRobin) console.log(`| p50 first token, returning ÷ resident follow-up | ${f(ttftW, 0)} ÷ ${f(ttftR, 0)} ms = **${f(ttftW / ttftR)}** (today: ${f(ttftB, 0)} ms, ${f(ttftB / ttftR)}) | ≤ 1.5 |`);
if (newPhase) console.log(`| new player's first turn on a known mind ÷ fully cold (median of ${newPairs.length} minds), shared-lore level on: prompt tokens evaluated; first token | ${newPairs.map((p) => `${p.w.evaluated}÷${p.b.evaluated}`).join(", ")} = **${f(newEval)}**; ${newPairs.map((p) => `${f(p.w.ttftMs, 0)}÷${f(p.b.ttftMs, 0)} ms`).join(", ")} = **${f(newTtft)}** | ≤ 0.5 |`);
if (newPhase) console.log(`| the same on minds with a history (${args.known} earlier players' retrievals counted, other questions than the newcomer's) | ${historyPairs.map((p) => `${p.w.evaluated}÷${p.b.evaluated}`).join(", ")} = **${f(histEval)}**; ${historyPairs.map((p) => `${f(p.w.ttftMs, 0)}÷${f(p.b.ttftMs, 0)} ms`).join(", ")} = **${f(histTtft)}** | ≤ 0.5 |`);
if (newPhase) console.log(`| the same without the shared-lore level (sharedLoreTokens 0: last session's design) | ${newPairs.map((p) => `${p.w0.evaluated}÷${p.b0.evaluated}`).join(", ")} = **${f(newEval0)}**; ${newPairs.map((p) => `${f(p.w0.ttftMs, 0)}÷${f(p.b0.ttftMs, 0)} ms`).join(", ")} = **${f(newTtft0)}** | |`);
if (newPhase) console.log(`| shared level on ÷ the cold turn without it (the old denominator): prompt tokens; first token | **${f(newEvalVsOld)}**; **${f(newTtftVsOld)}** | |`);
if (newPhase) console.log(`| static prompt (system text + shared lore) of those minds, tokens; their newcomer prompts | ${staticW.join(", ")}; ${newPairs.map((p) => p.w.promptTokens).join(", ")} (without the level: ${newPairs.map((p) => p.w0.promptTokens).join(", ")}) | |`);
if (all) console.log(`| after a restart: returning ÷ resident follow-up: prompt tokens evaluated; p50 first token | **${f(restartEval)}**; **${f(restartTtft)}** | ≤ 1.5 |`);
console.log(`| disk per ${all ? `conversation (${f(convTokens, 0)}-token prompts at the end)` : "snapshot"} | ${f(store.bytes / Math.max(1, store.files) / MB)} MB per snapshot (${store.files} files, ${f(store.bytes / MB, 1)} MB) | |`);
console.log(`| restore speed; save speed | ${f(kvAll.restoreMs / Math.max(1e-9, kvAll.restoredBytes / MB))} ms per MB (${kvAll.restores} restores, ${f(kvAll.restoredBytes / MB, 1)} MB); ${f(kvAll.saveMs / Math.max(1e-9, kvAll.savedBytes / MB))} ms per MB (${kvAll.saves} saves, ${kvAll.evictionSaves} on the request path) | |`);
if (roundRobin) console.log(`| where returning turns started from | ${Object.entries(sources).map(([k, v]) => `${k} ${v}`).join(", ")} | |`);
if (roundRobin) {
  console.log(`\nFirst token, p50 of each Server-Timing part (ms): ${parts.join(" / ")}`);
  console.log(`- newcomer on the warm mind: ${breakdownOf(newcomers.map((x) => x.w)).map((x) => f(x, 1)).join(" / ")}; first token ${f(median(newcomers.map((x) => x.w.ttftMs)), 0)} ms`);
  console.log(`- the same line again, no warm-up in the background: ${breakdownOf(newcomers.map((x) => x.quiet)).map((x) => f(x, 1)).join(" / ")}; first token ${f(median(newcomers.map((x) => x.quiet.ttftMs)), 0)} ms`);
  console.log(`- the same fully cold: ${breakdownOf(newcomers.map((x) => x.cold)).map((x) => f(x, 1)).join(" / ")}; first token ${f(median(newcomers.map((x) => x.cold.ttftMs)), 0)} ms`);
  console.log(`- returning (warm): ${breakdown((x) => x.w).map((x) => f(x, 1)).join(" / ")}; first token ${f(ttftW, 0)} ms`);
  console.log(`- resident follow-up: ${breakdown((x) => x.r).map((x) => f(x, 1)).join(" / ")}; first token ${f(ttftR, 0)} ms`);
  console.log(`- today (evicted): ${breakdown((x) => x.b).map((x) => f(x, 1)).join(" / ")}; first token ${f(ttftB, 0)} ms`);
  console.log(`- prompt tokens per turn, p50: warm ${median(returning.map((x) => x.w.evaluated))} / resident ${median(returning.map((x) => x.r.evaluated))} / today ${median(returning.map((x) => x.b.evaluated))} of ${median(returning.map((x) => x.r.promptTokens))}`);
  console.log(`- warm returning turns' prompt tokens evaluated, p50 by round: ${Array.from({ length: turns }, (_, t) => byRound(t, (x) => x.w)).join(" / ")} (resident: ${Array.from({ length: turns }, (_, t) => byRound(t, (x) => x.r)).join(" / ")})`);
}
process.exit(0);
