// MiniLM in int8 (all-MiniLM-L6-v2 `model_int8.onnx`, the real fixture): the float graph ONNX Runtime ran (weights
// dequantised at load) against the graph rewritten so its MatMuls run in ONNX Runtime's integer GEMM
// (src/vectors/onnx/int8MatMuls.ts, bias Adds folded in or not) and its GELUs fused (fuseGelu.ts), side by side.
//
// --parts ops:   op counts of the graph before and after each rewrite, and the rewrite's own time.
// --parts close: cosine of each variant's vector against the float graph's, over written text (bench/support/
//                realTexts.ts: the example packs' and the held-out world's lore, questions, full-size chunks, the docs
//                pages), min / p1 / p5 / mean, per source; read as the server reads (256 pieces).
// --parts speed: the indexer's chunks through EmbedderThreads (`--threads` worker threads × 1 intra-op thread, the
//                server's default), the variants interleaved step by step; chunks/s (wall) and CPU ms per chunk (this
//                process's CPU: every thread's), and each variant's load time.
// --parts rss:   RSS of a fresh process per variant after loading `--threads` embedding threads and 8 passes, GC run.
// Retrieval recall (and recall with vectors stored by the float graph, queried by the int8 one) is in
// bench/minilm-indexing.ts --parts quality --reads 256,256i8,256x.
//
// Usage: bun bench/minilm-int8.ts [--parts ops,close,speed,rss] [--steps 4] [--step 16] [--threads 2]
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, homedir, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Embedder } from "../src/vectors/Embedder.ts";
import { type Int8MatMulOptions, int8MatMuls } from "../src/vectors/onnx/int8MatMuls.ts";
import { openGraph } from "../src/vectors/onnx/onnxGraph.ts";
import { pruneNanGuards } from "../src/vectors/onnx/pruneNanGuards.ts";
import { EmbedderThreads } from "../src/vectors/threads/EmbedderThreads.ts";
import { TransformersEmbedder, type TransformersEmbedderOptions } from "../src/vectors/TransformersEmbedder.ts";
import { fuseGelu } from "../src/vectors/onnx/fuseGelu.ts";
import { indexerChunks } from "./support/indexerChunks.ts";
import { realTexts } from "./support/realTexts.ts";

const { values: args } = parseArgs({
  options: {
    parts: { type: "string", default: "ops,close,speed,rss" },
    steps: { type: "string", default: "4" },
    step: { type: "string", default: "16" },
    threads: { type: "string", default: "2" },
    variants: { type: "string", default: "" },
    "rss-of": { type: "string", default: "" },
    model: { type: "string", default: join(homedir(), ".cache", "lorehold-fixtures", "embeddings", "all-MiniLM-L6-v2") },
  },
});
const threads = Number(args.threads);
const root = join(import.meta.dir, "..");
const file = join(args.model!, "onnx", "model_int8.onnx");

type Opts = Pick<TransformersEmbedderOptions, "int8" | "fuseGelu">;
const VARIANTS: { key: string; label: string; opts: Opts }[] = [
  { key: "float", label: "float graph, NaN guards pruned (as it was)", opts: { int8: false, fuseGelu: false } },
  { key: "float-gelu", label: "float graph, GELU fused", opts: { int8: false } },
  { key: "s8-plain", label: "int8 MatMuls (u8×s8), bias Adds apart", opts: { int8: { weights: "s8", bias: false }, fuseGelu: false } },
  { key: "s8-bias", label: "int8 MatMuls (u8×s8), bias folded in", opts: { int8: { weights: "s8" }, fuseGelu: false } },
  { key: "s8", label: "**int8 MatMuls (u8×s8), bias folded in, GELU fused (now)**", opts: { int8: { weights: "s8" } } },
  { key: "u8", label: "the same with weights shifted to uint8 (u8×u8 GEMM)", opts: { int8: { weights: "u8" } } },
  { key: "s8-keep", label: "int8 MatMuls but the FFN output projections (u8×s8), bias, GELU", opts: { int8: { weights: "s8", keepNarrowing: true } } },
];
const chosen = args.variants ? VARIANTS.filter((v) => args.variants!.split(",").includes(v.key)) : VARIANTS;
const machine = () => `${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}`;
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

// ------------------------------------------------------------- rss (a child process per variant)
if (args["rss-of"]) {
  const v = VARIANTS.find((x) => x.key === args["rss-of"])!;
  const e = await EmbedderThreads.load(args.model!, { count: threads, maxTokens: 256, ...v.opts });
  const chunks = indexerChunks(8, { sizeHint: 400 });
  await e.embed(chunks);
  Bun.gc(true);
  console.log(JSON.stringify({ rss: process.memoryUsage().rss }));
  await e.dispose();
  process.exit(0);
}

const parts = args.parts!.split(",");
console.log(`\nMachine: ${machine()}; onnxruntime-node ${JSON.parse(readFileSync(join(root, "node_modules", "onnxruntime-node", "package.json"), "utf8")).version}\n`);

// ------------------------------------------------------------- ops
function opCounts(model: Uint8Array): Map<string, number> {
  const counts = new Map<string, number>();
  for (const n of openGraph(model)!.nodes) counts.set(n.domain ? `${n.domain}.${n.op}` : n.op, (counts.get(n.domain ? `${n.domain}.${n.op}` : n.op) ?? 0) + 1);
  return counts;
}
if (parts.includes("ops")) {
  const exported = new Uint8Array(readFileSync(file));
  const t0 = performance.now();
  const pruned = pruneNanGuards(exported).model;
  const pruneMs = performance.now() - t0;
  const rows: [string, Map<string, number>, number][] = [["as exported", opCounts(exported), 0], ["NaN guards pruned", opCounts(pruned), pruneMs]];
  for (const v of chosen.filter((x) => x.key !== "float")) {
    const t1 = performance.now();
    let m = v.opts.fuseGelu === false ? pruned : fuseGelu(pruned).model;
    if (v.opts.int8) m = int8MatMuls(m, v.opts.int8 as Int8MatMulOptions).model;
    rows.push([v.label, opCounts(m), performance.now() - t1]);
  }
  const ops = [...new Set(rows.flatMap(([, c]) => [...c.keys()]))].filter((o) => rows.some(([, c]) => c.get(o) !== rows[0][1].get(o)) || ["MatMul"].includes(o));
  console.log(`### Op counts (those that change), and the rewrite's time\n\n| graph | ${ops.join(" | ")} | all nodes | rewrite ms |\n|---|${ops.map(() => "---").join("|")}|---|---|`);
  for (const [label, c, ms] of rows) console.log(`| ${label} | ${ops.map((o) => c.get(o) ?? 0).join(" | ")} | ${[...c.values()].reduce((a, b) => a + b, 0)} | ${ms.toFixed(0)} |`);
}

// ------------------------------------------------------------- close
if (parts.includes("close")) {
  const texts = realTexts(root);
  const float = await TransformersEmbedder.load(args.model!, { threads: 1, maxTokens: 256, ...VARIANTS[0].opts });
  const ref = await float.embed(texts.map((t) => t.text));
  await float.dispose();
  const sources = [...new Set(texts.map((t) => t.source))];
  console.log(`\n### Cosine to the float graph's vector, ${texts.length} texts (${sources.map((s) => `${texts.filter((t) => t.source === s).length} ${s}`).join(", ")})\n`);
  console.log("| variant | min | p1 | p5 | mean | min per source |\n|---|---|---|---|---|---|");
  for (const v of chosen.filter((x) => x.key !== "float")) {
    const e = await TransformersEmbedder.load(args.model!, { threads: 1, maxTokens: 256, ...v.opts });
    const mine = await e.embed(texts.map((t) => t.text));
    await e.dispose();
    const c = mine.map((x, i) => cos(x, ref[i]));
    const per = sources.map((s) => `${s} ${Math.min(...c.filter((_, i) => texts[i].source === s)).toFixed(4)}`).join(", ");
    console.log(`| ${v.label} | ${Math.min(...c).toFixed(4)} | ${q(c, 0.01).toFixed(4)} | ${q(c, 0.05).toFixed(4)} | ${(c.reduce((a, b) => a + b, 0) / c.length).toFixed(5)} | ${per} |`);
  }
}

// ------------------------------------------------------------- speed
if (parts.includes("speed")) {
  const steps = Number(args.steps);
  const STEP = Number(args.step);
  const chunks = indexerChunks(steps * STEP, { sizeHint: steps * STEP * 40 });
  const runs: { label: string; e: Embedder; loadMs: number; ms: number; cpu: number; n: number }[] = [];
  for (const v of chosen) {
    const t0 = performance.now();
    const e = await EmbedderThreads.load(args.model!, { count: threads, maxTokens: 256, ...v.opts });
    runs.push({ label: v.label, e, loadMs: performance.now() - t0, ms: 0, cpu: 0, n: 0 });
  }
  for (const r of runs) await r.e.embed(chunks.slice(0, 4)); // warm-up
  const loadStart = loadavg()[0];
  for (let s = 0; s < steps; s++) {
    const step = chunks.slice(s * STEP, (s + 1) * STEP);
    for (const r of runs) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await r.e.embed(step);
      r.ms += performance.now() - t0;
      const c = process.cpuUsage(c0);
      r.cpu += (c.user + c.system) / 1000;
      r.n += step.length;
    }
  }
  const rate = (r: (typeof runs)[number]) => r.n / (r.ms / 1000);
  console.log(`\n### Speed: ${threads} worker threads × 1 intra-op thread, ${steps} steps of ${STEP} indexer chunks (256 pieces read), variants interleaved; load ${loadStart.toFixed(1)} → ${loadavg()[0].toFixed(1)}\n`);
  console.log("| variant | chunks/s | ÷ first | CPU ms a chunk | first's CPU ÷ this | load (threads started, model ready) ms |\n|---|---|---|---|---|---|");
  for (const r of runs) console.log(`| ${r.label} | ${rate(r).toFixed(1)} | ${(rate(r) / rate(runs[0])).toFixed(2)} | ${(r.cpu / r.n).toFixed(1)} | ${(runs[0].cpu / runs[0].n / (r.cpu / r.n)).toFixed(2)} | ${r.loadMs.toFixed(0)} |`);
  for (const r of runs) await r.e.dispose?.();
}

// ------------------------------------------------------------- rss
if (parts.includes("rss")) {
  console.log(`\n### RSS after loading ${threads} embedding threads and 8 passes (a fresh process each, GC run)\n\n| variant | RSS MB |\n|---|---|`);
  for (const v of chosen) {
    const out = spawnSync(process.execPath, [import.meta.path, "--rss-of", v.key, "--threads", String(threads), "--model", args.model!], { encoding: "utf8" });
    const line = out.stdout.trim().split("\n").find((l) => l.startsWith("{"));
    console.log(`| ${v.label} | ${line ? (JSON.parse(line).rss / 2 ** 20).toFixed(0) : `failed: ${out.stderr.slice(-200)}`} |`);
  }
}
process.exit(0);
