// POST /v1/npc/interact measured end to end over real HTTP, side by side with raw node-llama-cpp,
// on a ~100M-parameter llama-shaped random-weight model (speed only; the words are noise).
// Usage: bun bench/interact.ts [--shape qwen0.5b|llama100m] [--type q4_0] [--threads N] [--tokens 48] [--chunks 10000] [--overhead 60]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getLlama, LlamaChatSession, LlamaLogLevel } from "node-llama-cpp";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { importPack, parsePackText } from "../src/packs/importPack.ts";
import { createApiKey } from "../src/auth/apiKeys.ts";
import { createDocument } from "../src/lore/documents/writeDocuments.ts";
import { readMinds } from "../src/lore/minds/readMinds.ts";
import { updateMind } from "../src/lore/minds/writeMinds.ts";
import { setRateLimits } from "../src/ratelimit/rateLimitSettings.ts";
import { prepareTurn } from "../src/npc/prepareTurn.ts";
import { validateInteract } from "../src/npc/validateInteract.ts";
import { prepareBatchCeiling, type CeilingRun } from "./support/batchCeiling.ts";
import { modelShape } from "./support/modelShapes.ts";
import { tinyGgufParameterCount, writeTinyGguf, type TinyGgufWeightType } from "../test/support/tinyGguf.ts";

const { values: args } = parseArgs({
  options: {
    shape: { type: "string", default: "qwen0.5b" },
    type: { type: "string", default: "q4_0" },
    threads: { type: "string", default: String(availableParallelism()) },
    tokens: { type: "string", default: "48" },
    chunks: { type: "string", default: "10000" },
    overhead: { type: "string", default: "60" },
    vocab: { type: "string", default: "words" },
    flash: { type: "string", default: "auto" },
  },
});
const threads = Number(args.threads);
const flash = args.flash as "auto" | "on" | "off";
const rawFlash = flash === "auto" ? undefined : flash === "on";
const replyTokens = Number(args.tokens);
const { label: shapeLabel, ...picked } = modelShape(args.shape);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const median = (xs: number[]) => pct(xs, 0.5);
const f = (x: number, d = 2) => x.toFixed(d);

const pack = readFileSync(join(import.meta.dir, "../examples/thornhaven.yaml"), "utf8");
const FILLER = "The ferryman counts the tolls while gulls circle the mill and the rain comes in from the marsh. ";
const sampleText = "Tell me what you saw on the river road last night, and who was with you.";
const newPlayerText = "Who keeps the mill by the marsh, and what do they owe the ferryman?";
// The random-weight model's tokenizer is byte-level unless told words: then every word of the world,
// the prompt template and the players' lines is one piece, as common English words are in a real
// model's vocab (Qwen2.5: ~1.3 tokens per word). Byte-level prompts are ~3× longer than a real model's,
// which overstates attention, the one cost concurrent sequences cannot share.
const promptSources = ["../src/npc/prompt/systemPrompt.ts", "../src/npc/prompt/renderTurn.ts"].map((f) => readFileSync(join(import.meta.dir, f), "utf8"));
const vocabWords =
  args.vocab === "words"
    ? [...new Set([pack, FILLER, sampleText, newPlayerText, "And then? And then what happened? Tell me more about that.", ...promptSources].join(" ").match(/[A-Za-z][A-Za-z']*/g) ?? [])]
    : [];
const shape = { ...picked, nCtx: 2048, weightType: args.type as TinyGgufWeightType, name: `bench-${args.shape}`, extraWords: vocabWords };

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-interact-"));
const modelPath = join(dir, "bench.gguf");
writeTinyGguf(modelPath, shape);

// ---- the server, on the demo world plus filler lore so retrieval runs over ~N chunks
const config = loadConfig({
  cwd: dir,
  env: {},
  flags: { dataDir: join(dir, "data"), modelsDir: dir, model: modelPath, threads, parallel: 4, contextSize: 2048, maxReplyTokens: replyTokens, port: 0, logLevel: "silent", flashAttention: flash, generationTimeoutMs: 300_000 },
});
const app = await App.create(config, { logger: silentLogger });
const { projectId } = importPack(app.ctx, parsePackText(pack, "thornhaven.yaml"));
const serverKey = createApiKey(app.ctx, { projectId, type: "server" }).key;
setRateLimits(app.ctx, projectId, { perPlayerPerMinute: 100000, perProjectPerMinute: 100000 });
// Cold turns are repeated on up to three minds (a mind's first conversation is the only cold one: later
// players start from a copy of its prompt's cache); the first is the one every other measure uses.
const minds = readMinds(app.ctx, projectId, { onlyWithTags: true }).slice(0, 3);
const mind = minds[0];
// A fixed reply length for every measured turn (responseConfig caps the reply; config caps it too).
for (const m of minds) updateMind(app.ctx, projectId, m.id, { responseConfig: { maxTokens: replyTokens } });
const targetChunks = Number(args.chunks);
for (let i = 0; i * 10 < targetChunks; i++) {
  const content = Array.from({ length: 10 }, (_, j) => `## Ledger ${i}.${j}\n\n${FILLER.repeat(14)} Entry ${i}-${j}.`).join("\n\n");
  createDocument(app.ctx, projectId, { name: `Harbour ledger ${i}`, content, tags: mind.knowledgeTags.slice(0, 1) });
}
const ti = performance.now();
for (;;) {
  const r = (await app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
  if (!r || r.indexed === 0) break;
}
const indexSeconds = (performance.now() - ti) / 1000;
const chunkCount = await app.ctx.vectors.countChunks(projectId);
app.listen();
let base = `http://127.0.0.1:${app.port}`;

interface Turn {
  /** arrival time of every token event */
  times: number[];
  ttftMs: number;
  decodeTps: number;
  tokens: number;
  totalMs: number;
  firstAt: number;
  endAt: number;
}

/** One streamed turn over HTTP: time to first token and decode speed (tokens after the first / time after the first). */
async function turn(playerId: string, text: string, mindId = mind.id): Promise<Turn> {
  const t0 = performance.now();
  const res = await fetch(`${base}/v1/npc/interact`, {
    method: "POST",
    headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ text, entityMindId: mindId, playerId }),
  });
  if (res.status !== 200) throw new Error(`interact ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let firstAt = 0;
  let tokens = 0;
  const times: number[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let idx: number;
    while ((idx = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, idx);
      buf = buf.slice(idx + 2);
      if (block.startsWith("event: token")) {
        tokens++;
        times.push(performance.now());
        if (!firstAt) firstAt = performance.now();
      }
    }
  }
  const endAt = performance.now();
  // SSE events carry text pieces; the engine's own counter says how many tokens were generated.
  return { times, ttftMs: firstAt - t0, decodeTps: tokens > 1 ? (tokens - 1) / ((endAt - firstAt) / 1000) : 0, tokens, totalMs: endAt - t0, firstAt, endAt };
}

const tokensGenerated = () => app.ctx.llm!.stats().tokensGenerated;

// ---- 2. cold vs follow-up (KV reuse) with the NPC's real prompt
const coldMessages = (await prepareTurn(app.ctx, projectId, validateInteract({ text: sampleText, entityMindId: mind.id, playerId: "kv-0" }))).messages;
const coldTokens = app.ctx.llm!.countChatTokens(coldMessages);
const coldWords = coldMessages.reduce((n, m) => n + (m.content.match(/\S+/g)?.length ?? 0), 0);
/** Prompt tokens llama.cpp evaluated for the requests in between two calls (the server's own counter). */
const evaluated = async () => Number(/^lorehold_prompt_tokens_evaluated_total (\d+)/m.exec(await app.metrics.text())?.[1] ?? NaN);
// Each cold turn is followed at once by its follow-up, so a pair sees the same load.
const pairs: { cold: Turn; follow: Turn; coldEvaluated: number; followEvaluated: number; followTokens: number }[] = [];
for (const [i, m] of minds.entries()) {
  let e = await evaluated();
  const cold = await turn(`kv-${i}`, sampleText, m.id);
  const coldEvaluated = (await evaluated()) - e;
  const followPrompt = await prepareTurn(app.ctx, projectId, validateInteract({ text: "And then?", entityMindId: m.id, playerId: `kv-${i}` }));
  e = await evaluated();
  const follow = await turn(`kv-${i}`, "And then?", m.id);
  pairs.push({ cold, follow, coldEvaluated, followEvaluated: (await evaluated()) - e, followTokens: app.ctx.llm!.countChatTokens(followPrompt.messages) });
}
const { coldEvaluated, followEvaluated, followTokens } = pairs[0];
const cold = pairs[0].cold;
const followRatio = median(pairs.map((p) => p.follow.ttftMs / p.cold.ttftMs));
// A second player's first turn with the same mind, asking something else (other lore): only the mind's
// own prompt is shared with the first player's cache.
const e0 = await evaluated();
const sharedPrefix = await turn("kv-player-2", newPlayerText);
const sharedEvaluated = (await evaluated()) - e0;

// ---- 1. decode speed: HTTP vs raw node-llama-cpp on the same prompt, alternating (the server idles
// while the raw session runs on its own copy of the model)
const promptForRaw = (await prepareTurn(app.ctx, projectId, validateInteract({ text: sampleText, entityMindId: mind.id, playerId: "raw" }))).messages;
const llama = await getLlama({ gpu: false, build: "never", maxThreads: threads, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath });
async function rawDecodeTps(): Promise<number> {
  const ctx = await model.createContext({ sequences: 1, contextSize: 2048, threads: { ideal: threads, min: threads }, flashAttention: rawFlash });
  const session = new LlamaChatSession({ contextSequence: ctx.getSequence(), systemPrompt: promptForRaw[0].content });
  let first = 0;
  let n = 0;
  await session.prompt(promptForRaw.at(-1)!.content, {
    maxTokens: replyTokens,
    onToken: (toks) => {
      n += toks.length;
      if (!first) first = performance.now();
    },
  });
  const end = performance.now();
  await ctx.dispose();
  return n > 1 ? (n - 1) / ((end - first) / 1000) : 0;
}
const decodePairs: { http: number; raw: number }[] = [];
for (let i = 0; i < 5; i++) {
  const g0 = tokensGenerated();
  const r = await turn(`decode-${i}`, sampleText);
  const gen = tokensGenerated() - g0;
  decodePairs.push({ http: gen > 1 ? (gen - 1) / ((r.endAt - r.firstAt) / 1000) : 0, raw: await rawDecodeTps() });
}
await app.stop();
// The hardware ceiling for the concurrency ratio: perfect lock-step decoding straight on the native
// context, sequences holding prompts as long as the follow-up turns'. Measured in turns with the server's own.
const ceilingContext = await model.createContext({ sequences: 4, contextSize: 2048, threads: { ideal: threads, min: threads }, flashAttention: rawFlash });
const ceiling = await prepareBatchCeiling(model, ceilingContext, { text: `${promptForRaw[0].content}\n`, promptTokens: followTokens, sequences: 4, steps: 32 });

// ---- 3 and 4 need the server again (a fresh process state for the concurrency measure)
const app2 = await App.create({ ...config }, { logger: silentLogger });
app2.listen();
const base2 = `http://127.0.0.1:${app2.port}`;
base = base2;
async function turn2(playerId: string, text: string) {
  const t0 = performance.now();
  const res = await fetch(`${base2}/v1/npc/interact`, {
    method: "POST",
    headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json" },
    body: JSON.stringify({ text, entityMindId: mind.id, playerId }),
  });
  const timing = res.headers.get("server-timing") ?? "";
  await res.json();
  if (res.status !== 200) throw new Error(`interact ${res.status}`);
  const overhead = Number(/overhead;dur=([\d.]+)/.exec(timing)?.[1] ?? NaN);
  return { ms: performance.now() - t0, overhead };
}
// Four live conversations, one per sequence (their first turns, one after the other).
for (let i = 0; i < 4; i++) await turn(`quad-${i}`, sampleText);
const gen2 = () => app2.ctx.llm!.stats();
// Then follow-up turns (their prompts are mostly in the KV cache): one alone, then all four at once.
// Alternating, so load changes on the shared machine hit both sides alike: one follow-up alone, four at
// once, then the ceiling's 1 and 4; medians over the rounds.
const rounds: { one: number; four: number; calls: number; tokens: number; window: number; c1: CeilingRun; c2: CeilingRun; c4: CeilingRun }[] = [];
for (let r = 0; r < 5; r++) {
  const solo = await turn("quad-0", `And then what happened? (${r})`);
  const one = (solo.times.length - 1) / ((solo.endAt - solo.firstAt) / 1000);
  const s0 = gen2();
  const quad = await Promise.all([0, 1, 2, 3].map((i) => turn(`quad-${i}`, `Tell me more about that. (${r})`)));
  const s1 = gen2();
  // Aggregate decode speed while all four are decoding: token events of every stream inside the window
  // from the last first-token to the first end (prompt processing of the new lines is outside it).
  const winStart = Math.max(...quad.map((q) => q.firstAt));
  const winEnd = Math.min(...quad.map((q) => q.endAt));
  const inWindow = quad.reduce((n, q) => n + q.times.filter((t) => t > winStart && t <= winEnd).length, 0);
  const four = winEnd > winStart ? inWindow / ((winEnd - winStart) / 1000) : NaN;
  const c1 = await ceiling.run(1);
  const c2 = await ceiling.run(2);
  const c4 = await ceiling.run(4);
  rounds.push({ one, four, calls: s1.decodeCalls - s0.decodeCalls, tokens: s1.tokensGenerated - s0.tokensGenerated, window: winEnd - winStart, c1, c2, c4 });
}
ceiling.dispose();
await ceilingContext.dispose();
await model.dispose();
await llama.dispose();
const oneTps = median(rounds.map((r) => r.one));
const fourTps = median(rounds.map((r) => r.four));
const ceil = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));

// ---- 4. non-generation overhead over many requests (retrieval over all chunks, ledger, limits, session)
updateMind(app2.ctx, projectId, mind.id, { responseConfig: { maxTokens: 1 } });
const overheads: number[] = [];
for (let i = 0; i < Number(args.overhead); i++) overheads.push((await turn2(`overhead-${i % 20}`, `${sampleText} (${i})`)).overhead);
await app2.stop();
rmSync(dir, { recursive: true, force: true });

const cpu = cpus()[0]?.model ?? "unknown CPU";
const params = tinyGgufParameterCount(shape);
console.log(`\n### POST /v1/npc/interact — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpu}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}; threads ${threads}, 4 sequences × 2,048 context, flash attention ${flash}.`);
console.log(`Model: random-weight llama with the shape of ${shapeLabel}, n_embd ${shape.nEmbd}, ${shape.nLayers} layers, ${shape.nHeads} heads (${shape.nHeadsKv} KV), ff ${shape.nFf}, vocab ${shape.vocabSize}, ${shape.weightType} (${(params / 1e6).toFixed(0)}M parameters); tokenizer: ${args.vocab === "words" ? "the world's words as pieces" : "byte-level"}, ${f(coldTokens / coldWords)} tokens per word of the cold prompt.`);
console.log(`Lore: demo world + filler, ${chunkCount} chunks indexed in ${f(indexSeconds, 1)} s (hashing embedder).\n`);
console.log("| measure | figure | target |");
console.log("|---|---|---|");
const decodeRatios = decodePairs.map((p) => p.http / p.raw);
console.log(`| decode tok/s through HTTP (SSE) ÷ raw LlamaChatSession, same prompt (median of ${decodePairs.length} alternating pairs: ${decodeRatios.map((x) => f(x)).join(", ")}) | ${f(median(decodePairs.map((p) => p.http)), 1)} ÷ ${f(median(decodePairs.map((p) => p.raw)), 1)}; **${f(median(decodeRatios))}** | ≥ 0.95 |`);
console.log(`| first token of a follow-up turn (${followEvaluated} of ${followTokens} prompt tokens evaluated) ÷ cold turn (${coldEvaluated} of ${coldTokens}) — median over ${pairs.length} minds' pairs (${pairs.map((p) => `${f(p.follow.ttftMs, 0)} ÷ ${f(p.cold.ttftMs, 0)} ms, ${p.followEvaluated} ÷ ${p.coldEvaluated} tokens`).join("; ")}) | **${f(followRatio)}** | ≤ 0.15 |`);
console.log(`| first token of a new player's first turn with the same mind (${sharedEvaluated} prompt tokens evaluated: the mind's prompt is copied from the first player's cache) ÷ cold | ${f(sharedPrefix.ttftMs, 0)} ms ÷ ${f(cold.ttftMs, 0)} ms = ${f(sharedPrefix.ttftMs / cold.ttftMs)} | |`);
const last = rounds.at(-1)!;
console.log(`| aggregate decode tok/s, 4 concurrent follow-up turns ÷ 1 (median of ${rounds.length} alternating rounds: ${rounds.map((r) => f(r.four / r.one)).join(", ")}) | ${f(fourTps, 1)} ÷ ${f(oneTps, 1)} = **${f(fourTps / oneTps)}** (decode calls: ${last.calls} for ${last.tokens} tokens) | ≥ 2.0 |`);
const [c1, c2, c4] = [ceil((r) => r.c1.rate), ceil((r) => r.c2.rate), ceil((r) => r.c4.rate)];
console.log(`| (hardware ceiling, same rounds: raw lock-step decoding on the native context, ${followTokens}-token sequences — 4 ÷ 1; 2 ÷ 1) | ${f(c4, 1)} ÷ ${f(c1, 1)} = **${f(c4 / c1)}**; ${f(c2 / c1)} (a decode call: ${f(ceil((r) => r.c1.decodeMs), 1)} ms for 1 token, ${f(ceil((r) => r.c4.decodeMs), 1)} ms for 4) | |`);
console.log(`| (the server's concurrency ratio ÷ the ceiling's) | **${f(fourTps / oneTps / (c4 / c1))}** | |`);
console.log(`| non-generation overhead per request, p50 / p99 (${overheads.length} requests, ${chunkCount} chunks) | ${f(median(overheads), 1)} ms / ${f(pct(overheads, 0.99), 1)} ms | p99 ≤ 20 ms |`);
process.exit(0);
