// MiniLM (all-MiniLM-L6-v2 int8 ONNX, the real fixture) embedding the indexer's chunks: texts per forward pass 1, 8,
// 16, 32, each batch taken in the order the chunks come ("as it was") or after sorting the step's chunks by length
// (the embedder now does that itself, so a pass pads little). Every variant embeds the same chunks, step by step
// (256 chunks a step, as the indexer hands them over), the variants interleaved per step so the box's load drifts
// alike for all. Chunks are the chunker's output over generated lore documents (bench/support/bigWorld.ts).
// Usage: bun bench/embed-batch.ts [--threads 1] [--steps 2] [--step 256] [--batches 1,8,16,32] [--model <folder>]
import { availableParallelism, cpus, homedir, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { TransformersEmbedder } from "../src/vectors/TransformersEmbedder.ts";
import { indexerChunks } from "./support/indexerChunks.ts";

const { values: args } = parseArgs({
  options: {
    threads: { type: "string", default: "1" },
    steps: { type: "string", default: "2" },
    step: { type: "string", default: "256" },
    batches: { type: "string", default: "1,8,16,32" },
    orders: { type: "string", default: "arrival,sorted" },
    model: { type: "string", default: join(homedir(), ".cache", "lorehold-fixtures", "embeddings", "all-MiniLM-L6-v2") },
  },
});
const threads = Number(args.threads);
const order = args.orders!.split(",");
const steps = Number(args.steps);
const STEP = Number(args.step);
const chunks = indexerChunks(steps * STEP, { sizeHint: steps * 200 * 40, shortDocs: true });
const variants: { label: string; embedder: TransformersEmbedder; batch: number; sorted: boolean; ms: number; n: number }[] = [];
for (const batch of args.batches!.split(",").map(Number)) {
  for (const sorted of batch === 1 ? [false] : [false, true]) {
    if (sorted && !order.includes("sorted")) continue;
    if (!sorted && batch > 1 && !order.includes("arrival")) continue;
    variants.push({ label: `${batch} a pass${batch === 1 ? "" : sorted ? ", the step sorted by length (now)" : ", in arrival order (as it was)"}`, embedder: await TransformersEmbedder.load(args.model!, { threads, batch }), batch, sorted, ms: 0, n: 0 });
  }
}
for (const v of variants) await v.embedder.embed(chunks.slice(0, 4)); // warm-up
for (let s = 0; s < steps; s++) {
  const step = chunks.slice(s * STEP, (s + 1) * STEP);
  for (const v of variants) {
    const t0 = performance.now();
    // as it was: the embedder took the step's chunks as they came, `batch` at a time
    if (v.sorted) await v.embedder.embed(step);
    else for (let i = 0; i < step.length; i += v.batch) await v.embedder.embed(step.slice(i, i + v.batch));
    v.ms += performance.now() - t0;
    v.n += step.length;
  }
}
const base = variants[0];
const rate = (v: (typeof variants)[number]) => v.n / (v.ms / 1000);
const tokens = chunks.slice(0, steps * STEP).map((c) => c.split(/\s+/).length);
console.log(`\n### MiniLM batched — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(
  `Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}. all-MiniLM-L6-v2 int8 ONNX, ${threads} intra-op thread(s), ${steps} steps of ${STEP} chunks (${Math.min(...tokens)}–${Math.max(...tokens)} words, median ${[...tokens].sort((a, b) => a - b)[tokens.length >> 1]}).\n`,
);
console.log("| texts per forward pass | chunks/s | ÷ one at a time |");
console.log("|---|---|---|");
for (const v of variants) console.log(`| ${v.label} | ${rate(v).toFixed(1)} | ${(rate(v) / rate(base)).toFixed(2)} |`);
for (const v of variants) await v.embedder.dispose();
process.exit(0);
