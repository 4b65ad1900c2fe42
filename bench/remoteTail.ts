// A typed turn's tail, in-process and through a real llama-server, on the same real model and prompts: its tokens,
// whitespace and validity. Three modes interleaved turn by turn (random order within a turn): the local engine
// (compact grammar); llama-server under the same GBNF (its `grammar` field: what a remote pool sends now); and
// llama-server under `json_schema` (what it sent before, kept as TailRequest.spacedJson).
// Usage: bun bench/remoteTail.ts [--model smol|qwen] [--turns 24] [--threads 1] [--words 24] [--seed 1]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import type { GenerateRequest, GenerateResult } from "../src/llm/types.ts";
import { RemotePool } from "../src/generation/remote/RemotePool.ts";
import { parseTail } from "../src/behaviour/parseTail.ts";
import { benchModelPath } from "./support/benchModel.ts";
import { llamaServerBinary, startLlamaServer } from "../test/support/llamaServer.ts";
import { whitespaceOutsideStrings } from "../test/support/jsonText.ts";
import { prng } from "../test/support/prng.ts";
import { median } from "./support/pairedRatio.ts";
import { b, lines, offered, schema, shopMessages, tail } from "./support/shopkeeper.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string", default: "smol" },
    turns: { type: "string", default: "24" },
    threads: { type: "string", default: "1" },
    words: { type: "string", default: "24" },
    seed: { type: "string", default: "1" },
  },
});
const modelPath = benchModelPath(args.model);
const BIN = llamaServerBinary();
if (!BIN) throw new Error("no llama-server binary: sh scripts/ci/backends.sh");
const threads = Number(args.threads);

// This llama-server build (the llama.cpp node-llama-cpp 3.22.1 ships) segfaults while repacking the real models'
// quantized weights on an AVX-512/AMX Xeon (SmolLM2 Q4_1, Qwen Q4_K_M; random-weight Q4_0 loads): startLlamaServer
// loads them as they are (--no-repack). Tokens and validity do not depend on it; its speed does, so the tail's milliseconds are indicative only.
const server = await startLlamaServer({ binary: BIN, model: modelPath, parallel: 1, slotContext: 2048, threads });
const engine = await LlmEngine.load({ modelPath, threads, parallel: 1, contextSize: 2048 });
const pool = new RemotePool({
  backends: [{ url: server.url, model: "bench", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 600_000, kind: "llama-server" }],
  defaultTimeoutMs: 600_000,
  fallbackContextSize: 2048,
});
await pool.probeAll();
// the delimiter's count by the server's tokenizer, as a live pool has it once it counted a typed turn's prompt
await pool.prepareCounts([tail.delimiter]);

const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "–");
type Mode = "local" | "remote grammar" | "remote json_schema";
const MODES: Mode[] = ["local", "remote grammar", "remote json_schema"];
interface Row {
  reported: number;
  /** the tail's JSON in the model's own tokens (the local tokenizer), the same measure for every mode */
  jsonTokens: number;
  /** JSON tokens minus those of the same value written compactly: what the whitespace cost */
  spent: number;
  whitespace: number;
  actions: number;
  valid: boolean;
  ms: number;
}
const rows: Record<Mode, Row[]> = { local: [], "remote grammar": [], "remote json_schema": [] };
const rand = prng(Number(args.seed));
let key = 0;
for (let i = 0; i < Number(args.turns); i++) {
  const messages = shopMessages(lines[i % lines.length], i);
  const order = [...MODES].sort(() => rand() - 0.5);
  for (const mode of order) {
    const req: GenerateRequest = {
      conversationKey: `rt:${key++}`,
      messages,
      maxTokens: Number(args.words),
      temperature: 0.7,
      minTokens: 1,
      tail: mode === "remote json_schema" ? { ...tail, spacedJson: true } : tail,
    };
    const r: GenerateResult = mode === "local" ? await engine.generate(req) : await pool.generate(req);
    const t = r.tail;
    if (!t || t.error) {
      console.warn(`${mode}: no tail (${t?.error ?? "none"})`);
      continue;
    }
    const parsed = parseTail(t.text, schema, b, offered, 1);
    const jsonTokens = engine.countTokens(t.text);
    let compact = jsonTokens;
    try {
      compact = engine.countTokens(JSON.stringify(JSON.parse(t.text)));
    } catch {}
    rows[mode].push({
      reported: t.tokens,
      jsonTokens,
      spent: jsonTokens - compact,
      whitespace: whitespaceOutsideStrings(t.text),
      actions: parsed.actions.length,
      valid: parsed.valid,
      ms: t.ms,
    });
    const x = rows[mode].at(-1)!;
    console.log(`turn ${i + 1} ${mode}: ${x.reported} tokens counted, ${x.jsonTokens} JSON tokens, ${x.whitespace} whitespace (${x.spent} tokens), ${x.valid ? "valid" : "INVALID"}, ${fmt(x.ms)} ms: ${t.text}`);
  }
}
await pool.dispose();
await engine.dispose();
await server.stop();

const mean = (xs: number[]) => xs.reduce((n, x) => n + x, 0) / xs.length;
const p50 = (mode: Mode, f: (r: Row) => number) => median(rows[mode].map(f));
console.log(
  `machine: ${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores, load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; model ${args.model}; threads ${threads}; ${args.turns} turns a mode; words ≤ ${args.words} tokens; temperature 0.7`,
);
// A tail's length is mostly the model's choice (no action: ~24 tokens; one with two parameters: ~40), which
// differs between modes by sampling; the tokens its whitespace cost are the format's, whatever it chose.
console.log("| mode | tail tokens p50 (counted: delimiter + sampled) | JSON tokens p50 / mean | ÷ local (p50) | tokens spent on whitespace: mean (max) | whitespace chars p50 (max) | with an action | valid | tail ms p50 |");
console.log("|---|---|---|---|---|---|---|---|---|");
const local = p50("local", (r) => r.jsonTokens);
for (const mode of MODES) {
  const rs = rows[mode];
  console.log(
    `| ${mode} | ${fmt(p50(mode, (r) => r.reported))} | ${fmt(p50(mode, (r) => r.jsonTokens))} / ${fmt(mean(rs.map((r) => r.jsonTokens)), 1)} | ${fmt(p50(mode, (r) => r.jsonTokens) / local, 2)} | ${fmt(mean(rs.map((r) => r.spent)), 1)} (${Math.max(0, ...rs.map((r) => r.spent))}) | ${fmt(p50(mode, (r) => r.whitespace))} (${Math.max(0, ...rs.map((r) => r.whitespace))}) | ${rs.filter((r) => r.actions > 0).length}/${rs.length} | ${rs.filter((r) => r.valid).length}/${rs.length} | ${fmt(p50(mode, (r) => r.ms))} |`,
  );
}
