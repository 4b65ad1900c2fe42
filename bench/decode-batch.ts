// Why concurrent decoding scales as it does on this CPU: the cost of one llama.cpp decode call by the
// number of tokens it carries, and the lock-step ceiling (n sequences, one token each per call), for
// each weight type, on a random-weight model with a real model's shape (Qwen2.5-0.5B unless told).
// Usage: bun bench/decode-batch.ts [--types q4_k_m,q4_0,q8_0,f16] [--shape qwen0.5b|llama3.2-1b] [--threads N] [--context 1000] [--flash auto|on|off]
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { writeTinyGguf, type TinyGgufWeightType } from "../test/support/tinyGguf.ts";
import { prepareBatchCeiling } from "./support/batchCeiling.ts";
import { modelShape } from "./support/modelShapes.ts";

const { values: args } = parseArgs({
  options: {
    types: { type: "string", default: "q4_k_m,q4_0,q8_0,f16" },
    shape: { type: "string", default: "qwen0.5b" },
    flash: { type: "string", default: "auto" },
    threads: { type: "string", default: String(availableParallelism()) },
    context: { type: "string", default: "1000" },
  },
});
const threads = Number(args.threads);
const flashAttention = args.flash === "on" ? true : args.flash === "off" ? false : undefined;
const { label, ...shape } = modelShape(args.shape);
const contextTokens = Number(args.context);
const BATCHES = [1, 2, 4, 8, 16];
const TEXT = "the old guard of the north gate knows every road and river in the king's land ";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-batch-"));
const llama = await getLlama({ gpu: false, build: "never", maxThreads: threads, logLevel: LlamaLogLevel.error });
const rows: string[] = [];
try {
  for (const type of args.types.split(",") as TinyGgufWeightType[]) {
    const modelPath = join(dir, `${type}.gguf`);
    writeTinyGguf(modelPath, { ...shape, nCtx: 2048, weightType: type, name: `${args.shape}-shape` });
    const model = await llama.loadModel({ modelPath });

    // A decode call carrying k tokens of one sequence costs the same matrix products as k sequences' tokens.
    const context = await model.createContext({ sequences: 1, contextSize: 2048, threads: { ideal: threads, min: threads }, flashAttention });
    const sequence = context.getSequence();
    const tokens = model.tokenize(TEXT.repeat(Math.ceil(contextTokens / 10))).slice(0, contextTokens + 64);
    // The prompt: what a cold turn waits for, and where weight types differ most (batched kernels).
    const p0 = performance.now();
    await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, contextTokens));
    const promptTps = contextTokens / ((performance.now() - p0) / 1000);
    const cost = new Map<number, number[]>(BATCHES.map((k) => [k, []]));
    for (let round = 0; round < 3; round++) {
      for (const k of BATCHES) {
        const t = performance.now();
        for (let r = 0; r < 4; r++) {
          await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(contextTokens, contextTokens + k));
          await sequence.eraseContextTokenRanges([{ start: contextTokens, end: sequence.nextTokenIndex }]);
        }
        cost.get(k)!.push((performance.now() - t) / 4);
      }
    }
    await context.dispose();

    const ceilingContext = await model.createContext({ sequences: 4, contextSize: 2048, threads: { ideal: threads, min: threads }, flashAttention });
    const ceiling = await prepareBatchCeiling(model, ceilingContext, { text: TEXT, promptTokens: contextTokens, sequences: 4, steps: 24 });
    const one: number[] = [], four: number[] = [];
    for (let r = 0; r < 3; r++) {
      one.push((await ceiling.run(1)).rate);
      four.push((await ceiling.run(4)).rate);
    }
    ceiling.dispose();
    await ceilingContext.dispose();
    await model.dispose();

    const c1 = median(cost.get(1)!);
    const costs = BATCHES.map((k) => `${median(cost.get(k)!).toFixed(1)} ms (${(median(cost.get(k)!) / c1).toFixed(2)}×)`);
    rows.push(`| ${type} | ${promptTps.toFixed(0)} tok/s | ${costs.join(" | ")} | ${median(one).toFixed(1)} → ${median(four).toFixed(1)} tok/s = **${(median(four) / median(one)).toFixed(2)}×** |`);
  }
} finally {
  await llama.dispose();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`### Decode cost by batch size — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}; ${threads} threads.`);
console.log(`Model: random-weight llama with the shape of ${label} (n_embd ${shape.nEmbd}, ${shape.nLayers} layers, ${shape.nHeads} heads / ${shape.nHeadsKv} KV, ff ${shape.nFf}, vocab ${shape.vocabSize}); sequences hold ${contextTokens} tokens; flash attention ${args.flash}. Median of 3 rounds.\n`);
console.log(`| weights | prompt (${contextTokens} tokens) | ${BATCHES.map((k) => `decode call, ${k} token${k > 1 ? "s" : ""}`).join(" | ")} | lock-step ceiling, 1 → 4 sequences |`);
console.log(`|---|---|${BATCHES.map(() => "---").join("|")}|---|`);
for (const r of rows) console.log(r);
