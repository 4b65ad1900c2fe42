// Remote generation (issue 13), side by side in one run on a random-weight model of a real shape:
//  1. first token of a follow-up turn through a remote llama-server (RemotePool, one backend) ÷ in-process LlmEngine;
//  2. follow-up first token with conversation-sticky routing ÷ round-robin over two llama-servers;
//  3. what a remote call adds per request: wall time − the server's own prompt+generation time (p50/p99).
// Needs the llama-server binary scripts/ci/backends.sh builds.
// Usage: bun bench/remote.ts [--shape llama100m|qwen0.5b] [--type q4_0] [--threads 1] [--pairs 8] [--tokens 16] [--overhead 40]
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import { LocalBackend } from "../src/generation/LocalBackend.ts";
import { RemotePool } from "../src/generation/remote/RemotePool.ts";
import type { RemoteResult } from "../src/generation/remote/RemoteBackend.ts";
import type { ChatMessage, GenerationBackend } from "../src/generation/types.ts";
import { modelShape } from "./support/modelShapes.ts";
import { writeTinyGguf, type TinyGgufWeightType } from "../test/support/tinyGguf.ts";
import { llamaServerBinary, startLlamaServer, type LlamaServer } from "../test/support/llamaServer.ts";

const { values: args } = parseArgs({
  options: {
    shape: { type: "string", default: "llama100m" },
    type: { type: "string", default: "q4_0" },
    threads: { type: "string", default: "1" },
    pairs: { type: "string", default: "8" },
    tokens: { type: "string", default: "16" },
    overhead: { type: "string", default: "40" },
  },
});
const threads = Number(args.threads);
const pairs = Number(args.pairs);
const replyTokens = Number(args.tokens);
const BIN = llamaServerBinary();
if (!BIN) {
  console.error("no llama-server binary: run scripts/ci/backends.sh first");
  process.exit(1);
}
const { label, ...shape } = modelShape(args.shape);

const WORDS = "the old guard of the north gate knows every road and river in the king's land and speaks of dragons gold and quests".split(" ");
function words(n: number, seed: number): string {
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(WORDS[x % WORDS.length]);
  }
  return out.join(" ");
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const median = (xs: number[]) => q(xs, 0.5);
const f1 = (x: number) => x.toFixed(1);

/** A conversation: a ~350-token mind prompt, a first turn with ~300 tokens of lore, then short follow-ups. */
function conversation(seed: number) {
  const system: ChatMessage = { role: "system", content: `You are Garrick, guard of the north gate. ${words(300, seed)}` };
  const first: ChatMessage = { role: "user", content: `Lore: ${words(260, seed + 1)}\n\nTell me about the road.` };
  return { system, turns: [first, { role: "user" as const, content: "And the bridge?" }, { role: "user" as const, content: "Who guards it?" }] };
}

/** One turn as the interact path runs it: the reservation's token bound, then the generation; wall time to the first token. */
async function turn(gen: GenerationBackend, key: string, messages: ChatMessage[]): Promise<{ firstMs: number; totalMs: number; text: string; r: RemoteResult | null }> {
  const t0 = performance.now();
  let first: number | null = null;
  await gen.reserveTokens(messages);
  const r = await gen.generate({ conversationKey: key, messages, maxTokens: replyTokens, temperature: 0.7, minTokens: 1, onToken: () => (first ??= performance.now()) });
  const t1 = performance.now();
  return { firstMs: (first ?? t1) - t0, totalMs: t1 - t0, text: r.text, r: gen.mode === "remote" ? (r as RemoteResult) : null };
}

/** Runs a whole conversation; returns the follow-ups' first-token times. */
async function converse(gen: GenerationBackend, key: string, seed: number, followUps: number): Promise<number[]> {
  const c = conversation(seed);
  const history: ChatMessage[] = [c.system];
  const out: number[] = [];
  for (let i = 0; i <= followUps; i++) {
    history.push(c.turns[i]);
    const t = await turn(gen, key, history);
    if (i > 0) out.push(t.firstMs);
    history.push({ role: "assistant", content: t.text || "..." });
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-remote-"));
const modelPath = join(dir, "model.gguf");
writeTinyGguf(modelPath, { ...shape, nCtx: 2048, weightType: args.type as TinyGgufWeightType, name: "bench-remote" });
const servers: LlamaServer[] = [];
try {
  const engine = await LlmEngine.load({ modelPath, threads, parallel: 4, contextSize: 2048 });
  const local = new LocalBackend(engine);
  servers.push(...(await Promise.all([0, 1].map(() => startLlamaServer({ binary: BIN, model: modelPath, parallel: 4, slotContext: 2048, threads })))));
  const backend = (s: LlamaServer) => ({ url: s.url, model: "bench", apiKey: null, maxConcurrent: 4, weight: 1, timeoutMs: 120_000, kind: "llama-server" as const });
  const one = new RemotePool({ backends: [backend(servers[0])], defaultTimeoutMs: 120_000, fallbackContextSize: 2048 });
  const sticky = new RemotePool({ backends: servers.map(backend), defaultTimeoutMs: 120_000, fallbackContextSize: 2048 });
  const rr = new RemotePool({ backends: servers.map(backend), defaultTimeoutMs: 120_000, fallbackContextSize: 2048, routing: "round-robin" });
  await Promise.all([one.probeAll(), sticky.probeAll(), rr.probeAll()]);
  // warm both engines (first decode allocations)
  await converse(local, "warm", 1, 0);
  await converse(one, "warm", 1, 0);

  // 1. follow-up first token: remote ÷ in-process, pairs interleaved (order alternating)
  const localFirst: number[] = [];
  const remoteFirst: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const runs: Array<[GenerationBackend, number[]]> = i % 2 ? [[one, remoteFirst], [local, localFirst]] : [[local, localFirst], [one, remoteFirst]];
    for (const [gen, into] of runs) into.push(...(await converse(gen, `pair-${i}`, 100 + i * 7, 1)));
  }

  // 2. sticky ÷ round-robin over two backends: conversations of 3 turns, each its own mind prompt
  const stickyFirst: number[] = [];
  const rrFirst: number[] = [];
  for (let round = 0; round < Math.max(2, pairs / 2); round++) {
    const runs: Array<[GenerationBackend, number[]]> = round % 2 ? [[rr, rrFirst], [sticky, stickyFirst]] : [[sticky, stickyFirst], [rr, rrFirst]];
    for (const [gen, into] of runs) {
      const convs = await Promise.all([0, 1].map((k) => converse(gen, `r${round}-${gen === rr ? "rr" : "st"}-${k}`, 1000 + round * 31 + k * 13 + (gen === rr ? 5 : 0), 2)));
      into.push(...convs.flat());
    }
  }

  // 3. remote overhead per request: wall time − the server's prompt+generation time, short follow-ups
  const overhead: number[] = [];
  const c = conversation(7);
  const history: ChatMessage[] = [c.system, c.turns[0]];
  for (let i = 0; i < Number(args.overhead); i++) {
    const t = await turn(one, "overhead", history);
    if (t.r?.serverMs != null) overhead.push(t.totalMs - t.r.serverMs);
  }

  // pairs close in time share the machine's load of the moment: the median of the pair ratios is the steadier figure
  const pairRatios = localFirst.map((l, i) => remoteFirst[i] / l);
  const ratio = median(pairRatios);
  const stickyRatio = median(stickyFirst) / median(rrFirst);
  console.log(`\n${label}-shaped random weights (${args.type}), ${threads} thread(s) per engine, ${replyTokens}-token replies; ${cpus().length} × ${cpus()[0]?.model}; load ${loadavg().map((x) => x.toFixed(1)).join(" ")}\n`);
  console.log("| | in-process | remote llama-server | ratio |");
  console.log("|---|---|---|---|");
  console.log(`| follow-up first token, median (${localFirst.length} pairs) | ${f1(median(localFirst))} ms | ${f1(median(remoteFirst))} ms | ${(median(remoteFirst) / median(localFirst)).toFixed(2)} |`);
  console.log(`| median of the pair ratios (${pairRatios.map((r) => r.toFixed(2)).join(", ")}) | | | **${ratio.toFixed(2)}** |`);
  console.log(`| follow-up first token, p90 | ${f1(q(localFirst, 0.9))} ms | ${f1(q(remoteFirst, 0.9))} ms | ${(q(remoteFirst, 0.9) / q(localFirst, 0.9)).toFixed(2)} |`);
  console.log("\n| two llama-servers | sticky (consistent hashing) | round-robin | ratio |");
  console.log("|---|---|---|---|");
  console.log(`| follow-up first token, median (${stickyFirst.length} each) | ${f1(median(stickyFirst))} ms | ${f1(median(rrFirst))} ms | **${stickyRatio.toFixed(2)}** |`);
  console.log(`| follow-up first token, p90 | ${f1(q(stickyFirst, 0.9))} ms | ${f1(q(rrFirst, 0.9))} ms | ${(q(stickyFirst, 0.9) / q(rrFirst, 0.9)).toFixed(2)} |`);
  console.log(`\nremote overhead per request (wall − server prompt+generation time, ${overhead.length} requests): p50 ${f1(q(overhead, 0.5))} ms, p99 ${f1(q(overhead, 0.99))} ms`);
  await engine.dispose();
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
}
