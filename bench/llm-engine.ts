// LlmEngine vs raw node-llama-cpp on a ~100M-parameter llama-shaped random model.
// Usage: bun bench/llm-engine.ts [--type q4_0|q8_0|f16|f32] [--vocab 16000] [--threads N] [--tokens 64]
import { execSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getLlama, LlamaChat, LlamaChatSession, LlamaLogLevel, TokenBias, type LlamaModel } from "node-llama-cpp";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import { prepareBatchCeiling } from "./support/batchCeiling.ts";
import type { ChatMessage } from "../src/llm/types.ts";
import { tinyGgufParameterCount, writeTinyGguf, type TinyGgufWeightType } from "../test/support/tinyGguf.ts";
import { words } from "./support/benchWords.ts";

const { values: args } = parseArgs({
  options: {
    type: { type: "string", default: "q4_0" },
    vocab: { type: "string", default: "16000" },
    threads: { type: "string", default: String(availableParallelism()) },
    tokens: { type: "string", default: "64" },
    runs: { type: "string", default: "3" },
  },
});
const threads = Number(args.threads);
const decodeTokens = Number(args.tokens);
const runs = Number(args.runs);
const shape = {
  nEmbd: 768,
  nLayers: 12,
  nHeads: 12,
  nHeadsKv: 12,
  nFf: 2048,
  nCtx: 2048,
  vocabSize: Number(args.vocab),
  weightType: args.type as TinyGgufWeightType,
  name: "bench-llama-100m",
};


const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x: number, digits = 1) => x.toFixed(digits);

/** EOG tokens to "never" so every run decodes exactly `decodeTokens` tokens (TokenBias.set skips EOG tokens). */
function noEndBias(model: LlamaModel): TokenBias {
  const bias = new TokenBias(model.tokenizer);
  const map = (bias as unknown as { _biases: Map<number, number> })._biases;
  for (const t of model.iterateAllTokens()) if (model.isEogToken(t)) map.set(t, -Infinity);
  return bias;
}

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-"));
const modelPath = join(dir, "bench.gguf");
try {
  const t = performance.now();
  writeTinyGguf(modelPath, shape);
  const writeMs = performance.now() - t;
  const params = tinyGgufParameterCount(shape);
  const sizeMb = statSync(modelPath).size / 1e6;
  console.error(`model: ${(params / 1e6).toFixed(0)}M params, ${shape.weightType}, ${sizeMb.toFixed(0)} MB, written in ${fmt(writeMs / 1000, 2)} s`);

  const system = (who: string, n: number): ChatMessage => ({ role: "system", content: `You are ${who}. ${words(n, who.length * 7919)}` });
  const rows: [string, string, string][] = [];

  // Both stacks stay loaded and runs alternate between them, so a change in machine load
  // (2 shared cores) hits both sides of each ratio alike.
  const engine = await LlmEngine.load({ modelPath, threads, parallel: 4, contextSize: 2048 });
  const llama = await getLlama({ gpu: false, build: "never", maxThreads: threads, logLevel: LlamaLogLevel.warn });
  const model = await llama.loadModel({ modelPath });
  const rawContext = await model.createContext({ sequences: 5, contextSize: 2048, threads: { ideal: threads, min: threads } });
  const bias = noEndBias(model);

  // ---- 1. Single-sequence decode: LlmEngine vs raw LlamaChatSession on the same prompt ----
  const shortMessages: ChatMessage[] = [system("Bram", 40), { role: "user", content: "Tell me about the road north." }];
  const session = new LlamaChatSession({ contextSequence: rawContext.getSequence(), systemPrompt: shortMessages[0].content });
  const engineDecode = async (i: number) => {
    const started = performance.now();
    const r = await engine.generate({ conversationKey: "decode", messages: shortMessages, maxTokens: decodeTokens, minTokens: decodeTokens, seed: i });
    return (r.completionTokens - 1) / ((performance.now() - started - r.timeToFirstTokenMs) / 1000);
  };
  const rawDecode = async (i: number) => {
    let first = 0;
    let tokens = 0;
    session.resetChatHistory(); // same prompt every run: the sequence's cache still holds it
    await session.prompt(shortMessages[1].content, {
      maxTokens: decodeTokens,
      temperature: 0.7,
      seed: i,
      tokenBias: bias,
      onToken: (ts) => {
        if (tokens === 0) first = performance.now();
        tokens += ts.length;
      },
    });
    return (tokens - 1) / ((performance.now() - first) / 1000);
  };
  await engineDecode(0); // warm-up
  await rawDecode(0);
  const engineRates: number[] = [];
  const rawRates: number[] = [];
  for (let i = 1; i <= runs; i++) {
    engineRates.push(await engineDecode(i));
    rawRates.push(await rawDecode(i));
  }
  const engineRate = median(engineRates);
  const rawRate = median(rawRates);
  rows.push(["Decode, one sequence — LlmEngine vs raw LlamaChatSession", `${fmt(engineRate)} vs ${fmt(rawRate)} tok/s`, `**${fmt(engineRate / rawRate, 2)}×**`]);

  // ---- 2. TTFT: follow-up with KV reuse ÷ cold ~1,000-token prompt -------------------------
  {
    const longSystem = system("Ida, keeper of the river archive", 850);
    const turn1: ChatMessage[] = [longSystem, { role: "user", content: "What happened at the north gate?" }];
    const cold = await engine.generate({ conversationKey: "ttft", messages: turn1, maxTokens: 16, minTokens: 16 });
    const turn2: ChatMessage[] = [...turn1, { role: "assistant", content: cold.text }, { role: "user", content: "And who guards it now, at night?" }];
    const warm = await engine.generate({ conversationKey: "ttft", messages: turn2, maxTokens: 16, minTokens: 16 });
    rows.push([
      `Time to first token: follow-up (${warm.evaluatedPromptTokens} of ${warm.promptTokens} tokens evaluated) ÷ cold (${cold.promptTokens}-token prompt)`,
      `${fmt(warm.timeToFirstTokenMs / 1000, 3)} s ÷ ${fmt(cold.timeToFirstTokenMs / 1000, 2)} s`,
      `**${fmt(warm.timeToFirstTokenMs / cold.timeToFirstTokenMs, 3)}×**`,
    ]);
    rows.push(["Prompt processing (cold turn)", `${fmt(cold.evaluatedPromptTokens / (cold.timeToFirstTokenMs / 1000), 0)} tok/s`, ""]);
  }

  // ---- 3. Aggregate decode: 4 concurrent conversations ÷ 1 ---------------------------------
  const keys = ["c0", "c1", "c2", "c3"];
  const msgs = (k: string): ChatMessage[] => [system(`Guard ${k}`, 40), { role: "user", content: "Tell me about the road north." }];
  await Promise.all(keys.map((k) => engine.generate({ conversationKey: k, messages: msgs(k), maxTokens: 1 }))); // prompts cached
  const engineConc = async (n: number) => {
    const before = engine.stats().decodeCalls;
    const started = performance.now();
    const rs = await Promise.all(keys.slice(0, n).map((k) => engine.generate({ conversationKey: k, messages: msgs(k), maxTokens: decodeTokens, minTokens: decodeTokens })));
    const tokens = rs.reduce((sum, r) => sum + r.completionTokens, 0);
    return { rate: tokens / ((performance.now() - started) / 1000), calls: engine.stats().decodeCalls - before, tokens };
  };
  // The same on plain node-llama-cpp (LlamaChat per sequence, default batching options).
  session.dispose();
  const chats = [0, 1, 2, 3].map(() => new LlamaChat({ contextSequence: rawContext.getSequence() }));
  const history = (k: string) => [
    { type: "system" as const, text: msgs(k)[0].content },
    { type: "user" as const, text: msgs(k)[1].content },
    { type: "model" as const, response: [] as string[] },
  ];
  await Promise.all(chats.map((c, i) => c.generateResponse(history(keys[i]), { maxTokens: 1 })));
  const rawConc = async (n: number) => {
    const started = performance.now();
    await Promise.all(chats.slice(0, n).map((c, i) => c.generateResponse(history(keys[i]), { maxTokens: decodeTokens, tokenBias: bias, temperature: 0.7 })));
    return (n * decodeTokens) / ((performance.now() - started) / 1000);
  };
  const e1: number[] = [], e4: number[] = [], p1: number[] = [], p4: number[] = [];
  let last4 = { calls: 0, tokens: 0 };
  for (let i = 0; i < runs; i++) {
    e1.push((await engineConc(1)).rate);
    const four = await engineConc(4);
    e4.push(four.rate);
    last4 = four;
    p1.push(await rawConc(1));
    p4.push(await rawConc(4));
  }
  rows.push(["Aggregate decode, 4 concurrent ÷ 1 — LlmEngine (lock-step batching)", `${fmt(median(e4))} ÷ ${fmt(median(e1))} tok/s`, `**${fmt(median(e4) / median(e1), 2)}×**`]);
  rows.push(["Aggregate decode, 4 concurrent ÷ 1 — plain node-llama-cpp (default batching)", `${fmt(median(p4))} ÷ ${fmt(median(p1))} tok/s`, `**${fmt(median(p4) / median(p1), 2)}×**`]);
  rows.push(["LlmEngine decode calls for 4 concurrent replies", `${last4.calls} calls for ${last4.tokens} tokens`, `${fmt(last4.tokens / last4.calls, 2)} tokens/call`]);

  const concurrentPromptTokens = engine.countChatTokens(msgs("c0"));
  await engine.dispose();
  await rawContext.dispose();
  // The hardware ceiling: the same 4 ÷ 1 in perfect lock-step straight on the native context.
  const ceilingContext = await model.createContext({ sequences: 4, contextSize: 2048, threads: { ideal: threads, min: threads } });
  const ceiling = await prepareBatchCeiling(model, ceilingContext, { text: msgs("c0")[0].content, promptTokens: concurrentPromptTokens, sequences: 4, steps: decodeTokens });
  const ceil1: number[] = [], ceil4: number[] = [];
  for (let i = 0; i < runs; i++) {
    ceil1.push((await ceiling.run(1)).rate);
    ceil4.push((await ceiling.run(4)).rate);
  }
  ceiling.dispose();
  await ceilingContext.dispose();
  const [c1, c4] = [median(ceil1), median(ceil4)];
  rows.push(["Aggregate decode, 4 ÷ 1 — hardware ceiling (raw lock-step on the native context)", `${fmt(c4)} ÷ ${fmt(c1)} tok/s`, `**${fmt(c4 / c1, 2)}×**`]);
  await model.dispose();
  await llama.dispose();

  const cpu = cpus()[0]?.model ?? "unknown";
  let nproc = String(availableParallelism());
  try {
    nproc = execSync("nproc").toString().trim();
  } catch {}
  console.log(`### LlmEngine benchmark\n`);
  console.log(`Machine: ${nproc} cores (\`nproc\`), ${cpu}, load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}; node-llama-cpp 3.22.1, CPU, ${threads} threads.`);
  console.log(
    `Model: random-weight llama, n_embd ${shape.nEmbd}, ${shape.nLayers} layers, ${shape.nHeads} heads, ff ${shape.nFf}, vocab ${shape.vocabSize}, ` +
      `ctx 2048 × 4 sequences, ${shape.weightType.toUpperCase()}, ${(params / 1e6).toFixed(0)}M params (${sizeMb.toFixed(0)} MB, written in ${fmt(writeMs / 1000, 2)} s). ` +
      `${decodeTokens}-token replies, median of ${runs}.\n`,
  );
  console.log("| measure | figures | ratio |");
  console.log("|---|---|---|");
  for (const [a, b, c] of rows) console.log(`| ${a} | ${b} | ${c} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
