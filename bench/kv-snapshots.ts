// Warm conversations per GB of KV snapshots: a 2,048-token conversation's state on the real Qwen2.5-0.5B
// fixture, per KV cache type, as llama.cpp writes it, packed by zstd alone, and packed against its mind's
// prefix state (src/llm/kv/stateCodec.ts, what the snapshot store does), side by side in one run.
// The conversation is real text (the demo world's lore, so the KV values are a real model's on real
// words); the first --prefix tokens stand for the mind's static prompt, shared by all its players.
// Usage: bun bench/kv-snapshots.ts [--types f16,q8_0,q4_0] [--tokens 2048] [--prefix 512,1024] [--threads 1]
import { readFileSync, rmSync, mkdtempSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getLlama, type Token } from "node-llama-cpp";
import { packState, unpackState } from "../src/llm/kv/stateCodec.ts";
import { kvCacheTypes } from "../src/llm/kv/kvConfig.ts";
import { qwenFixture } from "../test/realmodel/realFixtures.ts";

const { values: args } = parseArgs({
  options: {
    types: { type: "string", default: "f16,q8_0,q4_0" },
    tokens: { type: "string", default: "2048" },
    prefix: { type: "string", default: "512,1024" },
    threads: { type: "string", default: "1" },
  },
});
const modelPath = qwenFixture();
if (!modelPath) {
  console.error("bench/kv-snapshots: Qwen2.5-Coder-0.5B-Instruct is missing; run `sh scripts/fetch-fixtures.sh` first.");
  process.exit(2);
}
const total = Number(args.tokens);
const prefixes = args.prefix.split(",").map(Number).sort((a, b) => a - b);
const threads = Number(args.threads);
const loadAtStart = loadavg()[0].toFixed(1);
const dir = mkdtempSync(join(tmpdir(), "lorehold-kv-bench-"));
const MB = 1e6;
const GB = 1e9;

const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" as never });
const model = await llama.loadModel({ modelPath });
const text = readFileSync(join(import.meta.dir, "../examples/thornhaven.yaml"), "utf8").repeat(8);
const tokens = model.tokenize(text).slice(0, total) as Token[];

interface Row {
  type: string;
  raw: number;
  zstd: number;
  delta: Map<number, { bytes: number; packMs: number; unpackMs: number }>;
  prefixRaw: Map<number, number>;
  evalMs: number;
}
const rows: Row[] = [];
for (const type of args.types.split(",") as ("f16" | "q8_0" | "q4_0")[]) {
  // Room beyond the conversation: a full context shifts its oldest tokens out, and the prefix with them.
  const context = await model.createContext({ contextSize: total + 256, sequences: 1, threads: { ideal: threads, min: threads }, flashAttention: true, ...kvCacheTypes(type) });
  const seq = context.getSequence();
  const states = new Map<number, Uint8Array>();
  const t0 = performance.now();
  let at = 0;
  for (const stop of [...prefixes, total]) {
    await seq.evaluateWithoutGeneratingNewTokens(tokens.slice(at, stop));
    at = stop;
    const path = join(dir, `${type}-${stop}.state`);
    await seq.saveStateToFile(path);
    states.set(stop, readFileSync(path));
    rmSync(path);
  }
  const evalMs = performance.now() - t0;
  if (seq.contextTokens.length !== total) throw new Error(`${type}: the sequence holds ${seq.contextTokens.length} tokens, not ${total}`);
  const raw = states.get(total)!;
  const zstd = (await packState(raw, null)).length;
  const delta = new Map<number, { bytes: number; packMs: number; unpackMs: number }>();
  for (const p of prefixes) {
    const base = states.get(p)!;
    const p0 = performance.now();
    const packed = await packState(raw, base);
    const p1 = performance.now();
    const back = await unpackState(packed, base);
    const p2 = performance.now();
    if (Buffer.compare(Buffer.from(back), Buffer.from(raw)) !== 0) throw new Error(`${type}: unpacked state differs`);
    delta.set(p, { bytes: packed.length, packMs: p1 - p0, unpackMs: p2 - p1 });
  }
  rows.push({ type, raw: raw.length, zstd, delta, prefixRaw: new Map(prefixes.map((p) => [p, states.get(p)!.length])), evalMs });
  console.error(`${type}: state ${(raw.length / MB).toFixed(2)} MB, evaluated in ${(evalMs / 1000).toFixed(1)} s`);
  await context.dispose();
}
await model.dispose();
rmSync(dir, { recursive: true, force: true });

const f16 = rows.find((r) => r.type === "f16") ?? rows[0];
const perGb = (bytes: number) => Math.floor(GB / bytes);
console.log(`\n### KV snapshots per GB (${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"}, Qwen2.5-Coder-0.5B-Instruct Q4_K_M, ${total}-token conversation, threads ${threads}, flash attention on, load average ${loadAtStart}→${loadavg()[0].toFixed(1)})\n`);
console.log(`Per conversation on disk; "against the prefix" leaves out the mind's prompt, stored once per mind (its own size in the last columns). Ratios: conversations per GB ÷ f16 as llama.cpp writes it.\n`);
const pHead = prefixes.map((p) => `against a ${p}-token prefix: MB · per GB · ×`).join(" | ");
console.log(`| KV type | as written: MB · per GB | zstd alone: MB · per GB · × | ${pHead} | pack / unpack ms (${prefixes.at(-1)}) | prefix state MB (${prefixes.join(", ")}) |`);
console.log(`|---|---|---|${prefixes.map(() => "---|").join("")}---|---|`);
for (const r of rows) {
  const cells = prefixes.map((p) => {
    const d = r.delta.get(p)!;
    return `${(d.bytes / MB).toFixed(2)} · ${perGb(d.bytes)} · **${(f16.raw / d.bytes).toFixed(2)}×**`;
  });
  const last = r.delta.get(prefixes.at(-1)!)!;
  console.log(
    `| ${r.type} | ${(r.raw / MB).toFixed(2)} · ${perGb(r.raw)} (${(f16.raw / r.raw).toFixed(2)}×) | ${(r.zstd / MB).toFixed(2)} · ${perGb(r.zstd)} · ${(f16.raw / r.zstd).toFixed(2)}× | ${cells.join(" | ")} | ${last.packMs.toFixed(0)} / ${last.unpackMs.toFixed(0)} | ${prefixes.map((p) => (r.prefixRaw.get(p)! / MB).toFixed(2)).join(", ")} |`,
  );
}
