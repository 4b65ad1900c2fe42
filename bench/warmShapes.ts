// KV snapshots per model shape (issue 14, item 5): file size, save and restore time per MB, measured on
// random-weight GGUFs with the recommended models' shapes (Qwen2.5-0.5B, Llama-3.2-1B), at the context
// sizes Lorehold uses, through the calls the snapshot store makes (node-llama-cpp's public
// saveStateToFile / loadStateFromFile on a context sequence), beside prompt evaluation of the same tokens.
// Usage: bun bench/warmShapes.ts [--shapes qwen0.5b,llama3.2-1b] [--contexts 2048,4096] [--type q8_0] [--threads 2] [--repeat 3]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Token } from "node-llama-cpp";
import { sharedLlama } from "../src/llm/llamaRuntime.ts";
import { modelShape } from "./support/modelShapes.ts";
import { tinyGgufParameterCount, writeTinyGguf, type TinyGgufWeightType } from "../test/support/tinyGguf.ts";

const { values: args } = parseArgs({
  options: {
    shapes: { type: "string", default: "qwen0.5b,llama3.2-1b" },
    contexts: { type: "string", default: "2048,4096" },
    type: { type: "string", default: "q8_0" },
    threads: { type: "string", default: "2" },
    repeat: { type: "string", default: "3" },
    fill: { type: "string", default: "0.9" },
  },
});
const threads = Number(args.threads);
const contexts = args.contexts.split(",").map(Number);
const repeat = Number(args.repeat);
const MB = 1024 * 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const f = (x: number, d = 1) => x.toFixed(d);

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-warm-shapes-"));
const llama = await sharedLlama(threads, "error");
const rows: string[] = [];
try {
  for (const name of args.shapes.split(",")) {
    const { label, ...shape } = modelShape(name);
    const opts = { ...shape, nCtx: Math.max(...contexts), weightType: args.type as TinyGgufWeightType, name: `bench-${name}` };
    const modelPath = join(dir, `${name}.gguf`);
    writeTinyGguf(modelPath, opts);
    const model = await llama.loadModel({ modelPath });
    const kvPerToken = shape.nLayers * shape.nHeadsKv * (shape.nEmbd / shape.nHeads) * 2 * 2; // K and V, F16
    for (const contextSize of contexts) {
      const context = await model.createContext({ sequences: 2, contextSize, threads: { ideal: threads, min: threads }, failedCreationRemedy: false });
      const [a, b] = [context.getSequence(), context.getSequence()];
      // A conversation filling the context as a long one does: random word tokens (the speed does not depend on them).
      const n = Math.floor(contextSize * Number(args.fill));
      const words = "the old king rode north to the village where the tavern keeper poured ale for every traveler and friend ";
      const pool = model.tokenize(words.repeat(Math.ceil(n / 10) + 10));
      const tokens: Token[] = pool.slice(0, n);
      const e0 = performance.now();
      await a.evaluateWithoutGeneratingNewTokens(tokens);
      const evalMs = performance.now() - e0;
      const saves: number[] = [];
      const restores: number[] = [];
      let bytes = 0;
      for (let r = 0; r < repeat; r++) {
        const path = join(dir, `${name}-${contextSize}-${r}.kv`);
        const s0 = performance.now();
        await a.saveStateToFile(path);
        saves.push(performance.now() - s0);
        bytes = statSync(path).size;
        await b.clearHistory();
        const r0 = performance.now();
        await b.loadStateFromFile(path, { acceptRisk: true });
        restores.push(performance.now() - r0);
        if (b.contextTokens.length !== n) throw new Error(`restore held ${b.contextTokens.length} tokens, not ${n}`);
        rmSync(path, { force: true });
      }
      const [save, restore] = [median(saves), median(restores)];
      rows.push(
        `| ${label} | ${contextSize} | ${n} | ${f(bytes / MB)} MB (${f(bytes / n / 1024)} KB a token; shape: ${f(kvPerToken / 1024)} KB) | ${f(save, 0)} ms = ${f(save / (bytes / MB), 2)} ms/MB | ${f(restore, 0)} ms = ${f(restore / (bytes / MB), 2)} ms/MB | ${f(evalMs / 1000)} s (${f(n / (evalMs / 1000), 0)} tokens/s) | **${f(evalMs / restore, 0)}×** |`,
      );
      console.error(rows.at(-1));
      await context.dispose();
    }
    console.error(`${label}: ${(tinyGgufParameterCount(opts) / 1e6).toFixed(0)}M parameters`);
    await model.dispose();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`\n### KV snapshots by model shape — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown CPU"}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}; ${threads} threads; random-weight GGUFs, ${args.type}, F16 KV cache; median of ${repeat} saves and restores.\n`);
console.log("| shape | context | tokens held | snapshot file | save | restore | evaluating the same tokens | evaluation ÷ restore |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
process.exit(0);
