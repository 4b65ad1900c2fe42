// A typed turn's quality on a real model, against the labelled set in bench/support/behaviourLabels.ts (written
// before this was measured): structured validity, action and parameter accuracy, false actions (an action
// where none was called for), emotion agreement; and its cost: the first token with behaviour on ÷ off on the
// same prompt, and the tail's tokens.
// Usage: bun bench/behaviourAccuracy.ts [--model qwen|smol] [--seeds 2] [--threads 1] [--words 32] [--pairs 8]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import type { ChatMessage } from "../src/llm/types.ts";
import { resolveBehaviour } from "../src/behaviour/resolveBehaviour.ts";
import { BEHAVIOUR_DELIMITER, behaviourBlock } from "../src/behaviour/behaviourPrompt.ts";
import { conditionsUnavailable, offerActions } from "../src/behaviour/offerActions.ts";
import { tailSchema, tailTokenBound } from "../src/behaviour/tailSchema.ts";
import { parseTail } from "../src/behaviour/parseTail.ts";
import { qwenFixture, realFixtures } from "../test/realmodel/realFixtures.ts";
import { labelledTurns, shopkeeper } from "./support/behaviourLabels.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string", default: "qwen" },
    seeds: { type: "string", default: "2" },
    threads: { type: "string", default: "1" },
    words: { type: "string", default: "32" },
    pairs: { type: "string", default: "8" },
    verbose: { type: "boolean", default: false },
  },
});
const modelPath = args.model === "qwen" ? qwenFixture() : realFixtures()?.smol;
if (!modelPath) throw new Error("fixture missing: sh scripts/fetch-fixtures.sh");

const b = resolveBehaviour(shopkeeper.behaviour as any)!;
const refs = { mind: [], location: [], item: shopkeeper.items };
const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs }).offered;
const schema = tailSchema(b, offered, refs);
const tail = { delimiter: BEHAVIOUR_DELIMITER, jsonSchema: schema, maxTokens: tailTokenBound(schema) };
const system = `${shopkeeper.system}\nYou sell: ${shopkeeper.items.join(", ")}.\n${behaviourBlock(b)}`;
const messages = (line: string, prefix = ""): ChatMessage[] => [{ role: "system", content: prefix + system }, { role: "user", content: line }];

const engine = await LlmEngine.load({ modelPath, threads: Number(args.threads), parallel: 1, contextSize: 2048 });
const words = Number(args.words);
const seeds = Number(args.seeds);
const median = (xs: number[]) => [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)];
const loadBefore = loadavg()[0];

let valid = 0, total = 0, calledFor = 0, actionRight = 0, paramsRight = 0, noneTurns = 0, falseActions = 0, emotionAgree = 0;
const tailTokens: number[] = [];
for (const [i, turn] of labelledTurns.entries()) {
  for (let s = 0; s < seeds; s++) {
    const r = await engine.generate({ conversationKey: `acc:${i}:${s}`, messages: messages(turn.line), maxTokens: words, temperature: 0.7, seed: 1 + s, minTokens: 1, tail });
    total++;
    const p = r.tail ? parseTail(r.tail.text, schema, b, offered, 1) : null;
    if (r.tail) tailTokens.push(r.tail.tokens);
    if (!p?.valid) continue;
    valid++;
    if (p.emotion.name === turn.emotion) emotionAgree++;
    if (turn.action === null) {
      noneTurns++;
      if (p.actions.length) falseActions++;
    } else {
      calledFor++;
      const hit = p.actions.find((a) => a.name === turn.action!.name);
      if (hit) {
        actionRight++;
        if (JSON.stringify(hit.params) === JSON.stringify(turn.action.params)) paramsRight++;
      }
    }
    if (args.verbose) console.error(`${turn.line.slice(0, 40)} | ${r.text.slice(0, 50).replace(/\n/g, " ")} | ${r.tail?.text}`);
  }
}

// The first token, behaviour on and off, on the same prompt: each pair's prompt opens with its own number so
// neither reuses the other's cache, and the order within a pair alternates.
const on: number[] = [], off: number[] = [];
for (let k = 0; k < Number(args.pairs); k++) {
  const line = labelledTurns[(k * 7) % labelledTurns.length].line;
  for (const withTail of k % 2 ? [true, false] : [false, true]) {
    const r = await engine.generate({ conversationKey: `ttft:${k}:${withTail}`, messages: messages(line, `(${k}${withTail ? "a" : "b"})\n`), maxTokens: 4, temperature: 0.7, minTokens: 1, ...(withTail ? { tail } : {}) });
    (withTail ? on : off).push(r.timeToFirstTokenMs);
  }
}
await engine.dispose();

const pct = (n: number, d: number) => `${d ? ((100 * n) / d).toFixed(1) : "–"} % (${n}/${d})`;
console.log(`machine: ${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores, load ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}; model ${args.model}; threads ${args.threads}; ${labelledTurns.length} labelled turns × ${seeds} seeds; words ≤ ${words} tokens; temperature 0.7`);
console.log("| structured validity | action accuracy (called for) | parameter accuracy (right action) | false actions (none called for) | emotion agreement | first token on ÷ off (median) | tail tokens p50 |");
console.log("|---|---|---|---|---|---|---|");
console.log(
  `| ${pct(valid, total)} | ${pct(actionRight, calledFor)} | ${pct(paramsRight, actionRight)} | ${pct(falseActions, noneTurns)} | ${pct(emotionAgree, valid)} | ${(median(on) / median(off)).toFixed(2)} (${median(on).toFixed(0)} / ${median(off).toFixed(0)} ms) | ${median(tailTokens)} |`,
);
