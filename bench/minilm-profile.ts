// Where a MiniLM chunk's time goes (all-MiniLM-L6-v2 int8, the indexer's chunks, read as the server reads them):
// tokenization (transformers.js's tokenizer, JS), building the input tensors (JS), the ONNX pass (native, with
// `--threads` intra-op threads; `--prune no`: the graph as exported), mean pooling and normalisation (JS). For each part: wall ms per chunk, the
// JavaScript thread's CPU ms (from /proc/self/task/<main tid>/stat) and the whole process's CPU ms (every thread).
// Usage: bun bench/minilm-profile.ts [--chunks 48] [--threads 2] [--max-tokens 256] [--prune yes|no]
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism, cpus, homedir, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { TransformersEmbedder } from "../src/vectors/TransformersEmbedder.ts";
import { accumulate, meanNormalised, segmentsOf } from "../src/vectors/tokenWindows.ts";
import { indexerChunks } from "./support/indexerChunks.ts";

const { values: args } = parseArgs({
  options: {
    chunks: { type: "string", default: "48" },
    threads: { type: "string", default: "2" },
    "max-tokens": { type: "string", default: "256" },
    prune: { type: "string", default: "yes" },
    model: { type: "string", default: join(homedir(), ".cache", "lorehold-fixtures", "embeddings", "all-MiniLM-L6-v2") },
  },
});
const TICK = 100; // clock ticks per second on Linux (sysconf(_SC_CLK_TCK))
/** utime + stime in ms of one thread (tid) or the whole process (no tid). */
function cpuMs(tid?: number): number {
  const f = readFileSync(tid ? `/proc/self/task/${tid}/stat` : "/proc/self/stat", "utf8");
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / TICK;
}
const mainTid = process.pid;
const threadsNow = () => readdirSync("/proc/self/task").length;

const n = Number(args.chunks);
const maxTokens = Number(args["max-tokens"]);
const threads = Number(args.threads);
const chunks = indexerChunks(n, { sizeHint: n * 60 }).slice(0, n);
const before = threadsNow();
const e = await TransformersEmbedder.load(args.model!, { threads, maxTokens, pruneGuards: args.prune !== "no" });
const after = threadsNow();
// reaching into the embedder's session to time its parts
const session = (e as unknown as { session: unknown }).session as import("onnxruntime-node").InferenceSession;
const { Tensor } = await import("onnxruntime-node");
await e.embed(chunks.slice(0, 4)); // warm-up

type Part = { wall: number; js: number; all: number };
const parts: Record<string, Part> = {};
function timed<T>(name: string, f: () => T): T {
  const w0 = performance.now(), j0 = cpuMs(mainTid), a0 = cpuMs();
  const r = f();
  const p = (parts[name] ??= { wall: 0, js: 0, all: 0 });
  p.wall += performance.now() - w0;
  p.js += cpuMs(mainTid) - j0;
  p.all += cpuMs() - a0;
  return r;
}
// Each part over all chunks at once (CPU ticks are 10 ms: a per-chunk reading would be mostly rounding).
const toks = timed("tokenize (JS)", () => chunks.map((c) => e.tokenizer.encode(c) as number[]));
const segs = toks.map((ids, i) => segmentsOf(i, ids, e.maxTokens, "truncate", 1)[0]);
const feeds = timed("input tensors (JS)", () =>
  segs.map((s) => {
    const ids = new BigInt64Array(s.ids.length);
    const mask = new BigInt64Array(s.ids.length).fill(1n);
    for (let t = 0; t < s.ids.length; t++) ids[t] = BigInt(s.ids[t]);
    const shape = [1, s.ids.length];
    return { input_ids: new Tensor("int64", ids, shape), attention_mask: new Tensor("int64", mask, shape), token_type_ids: new Tensor("int64", new BigInt64Array(s.ids.length), shape) };
  }),
);
const outs: Float32Array[] = [];
const w0 = performance.now(), j0 = cpuMs(mainTid), a0 = cpuMs();
for (const f of feeds) {
  const out = await session.run(f);
  outs.push(out.last_hidden_state.data as Float32Array);
}
parts["ONNX pass (onnxruntime-node session.run)"] = { wall: performance.now() - w0, js: cpuMs(mainTid) - j0, all: cpuMs() - a0 };
timed("mean pooling + normalise (JS)", () => outs.forEach((h, i) => {
  const sums = [new Float32Array(e.dims)];
  const counts = [0];
  accumulate(h, [{ text: 0, ids: segs[i].ids }], segs[i].ids.length, e.dims, sums, counts);
  meanNormalised(sums[0], counts[0]);
}));
// The whole embed() call, for the sum's check.
const wE = performance.now(), jE = cpuMs(mainTid), aE = cpuMs();
await e.embed(chunks);
const whole = { wall: performance.now() - wE, js: cpuMs(mainTid) - jE, all: cpuMs() - aE };
const pieces = toks.map((t) => Math.min(t.length, e.maxTokens));
console.log(`\n### Where a MiniLM chunk's time goes — ${new Date().toISOString().slice(0, 16)} UTC\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}. ${n} chunks, ${pieces.reduce((a, b) => a + b, 0) / n | 0} pieces read on average (max ${maxTokens}), ${threads} intra-op thread(s); threads in the process: ${before} before the session, ${after} after. Graph: ${args.prune === "no" ? "as exported" : "NaN guards pruned"}.\n`);
console.log("| part | wall ms per chunk | JS thread CPU ms per chunk | process CPU ms per chunk | other threads' CPU ms |");
console.log("|---|---|---|---|---|");
for (const [name, p] of [...Object.entries(parts), ["embed() as a whole", whole] as const]) console.log(`| ${name} | ${(p.wall / n).toFixed(1)} | ${(p.js / n).toFixed(1)} | ${(p.all / n).toFixed(1)} | ${((p.all - p.js) / n).toFixed(1)} |`);
await e.dispose();
process.exit(0);
