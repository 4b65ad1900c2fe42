/**
 * Whether llama.cpp gives the same reply to the same tokens and seed however the prompt reached the KV cache:
 * evaluated in one go, after a prefix evaluated apart (a mind's static prompt warmed or restored, then the turn), or
 * the prefix evaluated in a background warm-up's steps, or with all but its last token already held (a prompt a
 * sequence kept, as the next seed of the same question finds it).
 * Prompts from `bench/readPrompts.ts --tokens` (the engine's own token ids per question).
 *
 *   bun bench/evalSplit.ts --tokens prompts.txt --model smol --seeds 1,2,3 --questions 4 --stride 11 --threads 1
 */
import { readFileSync } from "node:fs";
import { getLlama, LlamaLogLevel, type ControlledEvaluateInputItem, type Token } from "node-llama-cpp";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";
import { qwenFixture } from "../test/realmodel/realFixtures.ts";

const fx = fixturesOrExit("evalSplit");
const modelPath = { smol: fx.smol, gemma: fx.gemma, qwen: qwenFixture() }[arg("model", "smol") as "smol" | "gemma" | "qwen"];
if (!modelPath) {
  console.error("bench/evalSplit: that model's fixture is not on this machine.");
  process.exit(2);
}
const threads = Number(arg("threads", "1"));
const seeds = arg("seeds", "1,2,3").split(",").map(Number);
const maxTokens = Number(arg("max-tokens", "64"));
const prompts = readFileSync(arg("tokens", "prompts.txt"), "utf8")
  .split("\n### ")
  .slice(1)
  .map((block) => {
    const lines = block.split("\n");
    const at = (label: string) => lines[lines.findIndex((l) => l.startsWith(label)) + 1].split(" ").filter(Boolean).map(Number) as Token[];
    return { name: lines[0], prefix: at("<tokens: prefix"), turn: at("<tokens: turn>") };
  })
  // every `--stride`th question (different minds), `--questions` of them
  .filter((_, i) => i % Number(arg("stride", "1")) === 0)
  .slice(0, Number(arg("questions", "6")));

const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ sequences: 1, contextSize: 4096, threads: { ideal: threads, min: threads } });
const sequence = context.getSequence();

/** `maxTokens` sampled after `parts` evaluated one after another on a cleared sequence. */
async function reply(parts: Token[][], seed: number, temperature: number): Promise<Token[]> {
  await sequence.clearHistory();
  const all = parts.flat();
  for (const p of parts.slice(0, -1)) await sequence.evaluateWithoutGeneratingNewTokens(p);
  const out: Token[] = [];
  for await (const t of sequence.evaluate(parts.at(-1)!, { temperature, seed })) {
    if (model.isEogToken(t) || out.length >= maxTokens) break;
    out.push(t);
  }
  if (sequence.contextTokens.length < all.length) throw new Error("prompt not held");
  return out;
}

/** A background warm-up's step (kv/WarmStarts.ts, WARM_CHUNK_TOKENS). */
const WARM_STEP = 64;
const steps = (tokens: Token[]) => Array.from({ length: Math.ceil(tokens.length / WARM_STEP) }, (_, i) => tokens.slice(i * WARM_STEP, (i + 1) * WARM_STEP));
const arms = {
  whole: (p: (typeof prompts)[0]) => [p.turn],
  "whole again": (p: (typeof prompts)[0]) => [p.turn] as Token[][] | null,
  "prefix apart": (p: (typeof prompts)[0]) => [p.turn.slice(0, p.prefix.length), p.turn.slice(p.prefix.length)],
  "prefix in warm-up steps": (p: (typeof prompts)[0]) => [...steps(p.turn.slice(0, p.prefix.length)), p.turn.slice(p.prefix.length)],
  "last token apart": (p: (typeof prompts)[0]) => [p.turn.slice(0, -1), p.turn.slice(-1)],
  // (only a prompt longer than one batch has a batch's end to split at)
  "split at the batch size": (p: (typeof prompts)[0]) => (p.turn.length > context.batchSize ? [p.turn.slice(0, context.batchSize), p.turn.slice(context.batchSize)] : null),
};
/** The first reply token's probabilities after `parts` (no sampling): how far a split moves them. */
async function firstProbabilities(parts: Token[][]): Promise<Map<Token, number>> {
  await sequence.clearHistory();
  for (const p of parts.slice(0, -1)) await sequence.evaluateWithoutGeneratingNewTokens(p);
  const last = parts.at(-1)!;
  const input: ControlledEvaluateInputItem[] = last.map((t, i) => (i === last.length - 1 ? [t, { generateNext: { probabilities: true } }] : t));
  const out = await sequence.controlledEvaluate(input);
  return out.at(-1)?.next?.probabilities ?? new Map();
}
const shift = Object.fromEntries(Object.keys(arms).map((k) => [k, 0]));
for (const p of prompts) {
  const base = await firstProbabilities(arms.whole(p));
  for (const [arm, parts] of Object.entries(arms).slice(1)) {
    const split = parts(p);
    if (!split) continue;
    const q = await firstProbabilities(split);
    for (const [t, v] of base) shift[arm] = Math.max(shift[arm], Math.abs(v - (q.get(t) ?? 0)));
  }
}

const differs = Object.fromEntries(Object.keys(arms).map((k) => [k, 0]));
const tried = Object.fromEntries(Object.keys(arms).map((k) => [k, 0]));
/** the reply token at which each differing reply first parts from the whole prompt's */
const firstDiff = Object.fromEntries(Object.keys(arms).map((k) => [k, [] as number[]]));
let n = 0;
for (const p of prompts)
  for (const [temperature, runSeeds] of [[0, [0]], [0.7, seeds]] as const)
    for (const seed of runSeeds) {
      const baseTokens = await reply(arms.whole(p), seed, temperature);
      const base = model.detokenize(baseTokens);
      n++;
      for (const [arm, parts] of Object.entries(arms).slice(1)) {
        const split = parts(p);
        if (!split) continue;
        tried[arm]++;
        const tokens = await reply(split, seed, temperature);
        const text = model.detokenize(tokens);
        if (text !== base) {
          differs[arm]++;
          firstDiff[arm].push(tokens.findIndex((t, i) => t !== baseTokens[i]));
          if (process.argv.includes("--verbose")) console.log(`${p.name} · t ${temperature} seed ${seed} · ${arm}\n  whole: ${JSON.stringify(base)}\n  ${arm}: ${JSON.stringify(text)}`);
        }
      }
    }
console.log(`\n${n} replies (${prompts.length} prompts of ${prompts.map((p) => p.turn.length).join(", ")} tokens: greedy, and seeds ${seeds.join(",")} at 0.7), ${maxTokens} tokens, threads ${threads}`);
for (const [arm, d] of Object.entries(differs).slice(1))
  console.log(
    `${arm}: ${d} of ${tried[arm]} differ from the prompt evaluated whole${d ? ` (first at reply token ${firstDiff[arm].sort((a, b) => a - b).join(", ")})` : ""}; first token's probabilities moved by up to ${shift[arm].toExponential(1)}`,
  );
process.exit(0);
