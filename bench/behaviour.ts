// The typed turn's cost on a real model: the words alone, the words with the behaviour tail on the same
// sequence, and the words followed by a second structured call (what a peer's separate "action" call costs).
// With --pairs N, the words' first token with behaviour on and off is measured in N interleaved pairs: each pair
// one prompt, run once with the tail and once without, in a random order, each on a sequence that holds none of
// it; reported as the ratio of medians and the median per-pair ratio with a bootstrap interval.
// Usage: bun bench/behaviour.ts [--model smol|qwen] [--runs 2] [--threads 1] [--words 60] [--pairs 30 --pair-words 8 --seed 1]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import type { ChatMessage, GenerateResult } from "../src/llm/types.ts";
import { parseTail } from "../src/behaviour/parseTail.ts";
import { benchModelPath } from "./support/benchModel.ts";
import { prng } from "../test/support/prng.ts";
import { pairedRatio } from "./support/pairedRatio.ts";
import { b, lines, offered, schema, shopMessages, tail } from "./support/shopkeeper.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string", default: "smol" },
    runs: { type: "string", default: "2" },
    threads: { type: "string", default: "1" },
    words: { type: "string", default: "60" },
    pairs: { type: "string", default: "0" },
    "pair-words": { type: "string", default: "8" },
    seed: { type: "string", default: "1" },
  },
});
const modelPath = benchModelPath(args.model);

const median = (xs: number[]) => (xs.length ? [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)] : NaN);
const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "–");

const engine = await LlmEngine.load({ modelPath, threads: Number(args.threads), parallel: 2, contextSize: 2048 });
const wordsCap = Number(args.words);
type Row = { ttft: number; total: number; tailMs?: number; tailTokens?: number; valid?: boolean; actions?: number; secondMs?: number; secondValid?: boolean; secondTokens?: number };
const rows: Record<"words" | "tail" | "second", Row[]> = { words: [], tail: [], second: [] };
let key = 0;
let nonce = 0;
const messages = (line: string): ChatMessage[] => shopMessages(line, nonce++);
const gen = async (msgs: ChatMessage[], extra: Partial<Parameters<LlmEngine["generate"]>[0]> = {}, k = `bench:${key++}`) => {
  const t0 = performance.now();
  const r: GenerateResult = await engine.generate({ conversationKey: k, messages: msgs, maxTokens: wordsCap, temperature: 0.7, minTokens: 1, ...extra });
  return { r, ms: performance.now() - t0, key: k };
};

for (let run = 0; run < Number(args.runs); run++) {
  for (const line of lines) {
    const w = await gen(messages(line));
    rows.words.push({ ttft: w.r.timeToFirstTokenMs, total: w.ms });
    const t = await gen(messages(line), { tail });
    const parsed = t.r.tail ? parseTail(t.r.tail.text, schema, b, offered, 1) : null;
    rows.tail.push({ ttft: t.r.timeToFirstTokenMs, total: t.ms, tailMs: t.r.tail?.ms, tailTokens: t.r.tail?.tokens, valid: parsed?.valid, actions: parsed?.actions.length });
    // A peer's way: the words, then a second call on the same conversation asking for the actions as JSON.
    const opening = messages(line);
    const s1 = await gen(opening);
    const follow: ChatMessage[] = [...opening, { role: "assistant", content: s1.r.text }, { role: "user", content: "Now give what you feel and do as JSON only." }];
    const s2 = await gen(follow, { jsonSchema: schema, maxTokens: tail.maxTokens, minTokens: 0 }, s1.key);
    let secondValid = false;
    try {
      secondValid = parseTail(s2.r.text, schema, b, offered, 1).valid;
    } catch {}
    rows.second.push({ ttft: s1.r.timeToFirstTokenMs, total: s1.ms + s2.ms, secondMs: s2.ms, secondValid, secondTokens: s2.r.evaluatedPromptTokens + s2.r.completionTokens });
  }
}
// First token, behaviour on ÷ off, in pairs. Both runs of a pair read the same prompt (the nonce is the pair's),
// each under a new conversation key: with two sequences, the second run takes the one the first did not use,
// which holds the previous pair's prompt, so each run reuses only the chat template's opening and evaluates the
// rest of the prompt, alike. The order within a pair is random, so neither mode is always the one that runs
// right after a tail (or right after the previous pair).
const pairCount = Number(args.pairs);
const pairs: { on: number; off: number; onFirst: boolean; load: number; tailTokens?: number; valid?: boolean }[] = [];
const rand = prng(Number(args.seed));
for (let i = 0; i < pairCount; i++) {
  const msgs = messages(lines[i % lines.length]);
  const onFirst = rand() < 0.5;
  const run = (on: boolean) => gen(msgs, { maxTokens: Number(args["pair-words"]), ...(on ? { tail } : {}) });
  const first = await run(onFirst);
  const second = await run(!onFirst);
  const [on, off] = onFirst ? [first, second] : [second, first];
  const parsed = on.r.tail ? parseTail(on.r.tail.text, schema, b, offered, 1) : null;
  pairs.push({ on: on.r.timeToFirstTokenMs, off: off.r.timeToFirstTokenMs, onFirst, load: loadavg()[0], tailTokens: on.r.tail?.tokens, valid: parsed?.valid });
  // one line a pair as it ends, so a long run on a loaded machine leaves its pairs behind if it is stopped
  const x = pairs.at(-1)!;
  console.log(`pair ${i + 1}: on ${fmt(x.on)} ms, off ${fmt(x.off)} ms, ratio ${fmt(x.on / x.off, 3)}, ${onFirst ? "on" : "off"} first, load ${x.load.toFixed(1)}, tail ${x.tailTokens} tokens${x.valid ? "" : " (invalid)"}`);
}
await engine.dispose();

const m = (rs: Row[], f: (r: Row) => number | undefined) => median(rs.map(f).filter((x): x is number => typeof x === "number"));
const rate = (rs: Row[], f: (r: Row) => boolean | undefined) => `${rs.filter((r) => f(r)).length}/${rs.length}`;
const base = m(rows.words, (r) => r.ttft);
console.log(`machine: ${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores, load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; model ${args.model}; threads ${args.threads}; ${rows.words.length} turns a mode; words ≤ ${wordsCap} tokens`);
if (rows.words.length) {
  console.log("| | first token (median ms) | vs words only | whole turn (median ms) | behaviour: ms / tokens (median) | behaviour valid | with an action |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(`| words only | ${fmt(base)} | 1.00× | ${fmt(m(rows.words, (r) => r.total))} | – | – | – |`);
  console.log(
    `| words + tail (same sequence) | ${fmt(m(rows.tail, (r) => r.ttft))} | ${fmt(m(rows.tail, (r) => r.ttft) / base, 2)}× | ${fmt(m(rows.tail, (r) => r.total))} | ${fmt(m(rows.tail, (r) => r.tailMs))} / ${fmt(m(rows.tail, (r) => r.tailTokens))} | ${rate(rows.tail, (r) => r.valid)} | ${rate(rows.tail, (r) => (r.actions ?? 0) > 0)} |`,
  );
  console.log(
    `| words, then a second JSON call | ${fmt(m(rows.second, (r) => r.ttft))} | ${fmt(m(rows.second, (r) => r.ttft) / base, 2)}× | ${fmt(m(rows.second, (r) => r.total))} | ${fmt(m(rows.second, (r) => r.secondMs))} / ${fmt(m(rows.second, (r) => r.secondTokens))} (evaluated + generated) | ${rate(rows.second, (r) => r.secondValid)} | – |`,
  );
}

if (pairs.length) {
  const p = pairedRatio(pairs.map((x) => x.on), pairs.map((x) => x.off), prng(Number(args.seed) + 1));
  const loads = pairs.map((x) => x.load);
  console.log(`\nfirst token, behaviour on ÷ off, ${p.pairs} interleaved pairs (same prompt, random order, words ≤ ${args["pair-words"]} tokens); 1-min load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
  console.log("| pairs | median on | median off | ratio of medians | median per-pair ratio [95 % bootstrap] | tail tokens p50 | tails valid |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(
    `| ${p.pairs} | ${fmt(p.medianOn)} ms | ${fmt(p.medianOff)} ms | ${fmt(p.ratioOfMedians, 3)} | ${fmt(p.medianRatio, 3)} [${fmt(p.interval[0], 3)}, ${fmt(p.interval[1], 3)}] | ${fmt(median(pairs.flatMap((x) => (x.tailTokens === undefined ? [] : [x.tailTokens]))))} | ${pairs.filter((x) => x.valid).length}/${pairs.length} |`,
  );
  const byOrder = (onFirst: boolean) => pairs.filter((x) => x.onFirst === onFirst).map((x) => x.on / x.off);
  console.log(`per-pair ratio by order: on ran first ${fmt(median(byOrder(true)), 3)} (${byOrder(true).length} pairs), off ran first ${fmt(median(byOrder(false)), 3)} (${byOrder(false).length} pairs)`);
}
