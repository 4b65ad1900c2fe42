// Where a typed turn's tail tokens go, and what appending the grammar's forced text in batches saves: each line
// run twice on the same seed, `stepwise` (every tail token its own decode step, as before) and `batched` (now), in
// an order that alternates, in one process. Lines: the shopkeeper's six (bench/support/shopkeeper.ts, trust on,
// bench/behaviour.ts) and a part of the labelled set (bench/support/behaviourLabels.ts, scored like
// bench/behaviourAccuracy.ts). The action gate is on at the default threshold, as served.
// Usage: bun bench/tailSteps.ts [--model qwen|smol] [--half tuning|heldout|third|none] [--seeds 1] [--threads 1] [--words 24]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import type { ChatMessage, TailRequest, TailResult } from "../src/llm/types.ts";
import { resolveBehaviour, type ActionDef, type Behaviour } from "../src/behaviour/resolveBehaviour.ts";
import { BEHAVIOUR_DELIMITER, behaviourBlock } from "../src/behaviour/behaviourPrompt.ts";
import { conditionsUnavailable, offerActions } from "../src/behaviour/offerActions.ts";
import { tailGate, tailSchema, tailTokenBound, type RefNames } from "../src/behaviour/tailSchema.ts";
import { parseTail } from "../src/behaviour/parseTail.ts";
import { benchModelPath } from "./support/benchModel.ts";
import { halfOf, labelledTurns, shopkeeper as labelShop, thirdTurns } from "./support/behaviourLabels.ts";
import * as shop from "./support/shopkeeper.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string", default: "qwen" },
    half: { type: "string", default: "tuning" },
    seeds: { type: "string", default: "1" },
    threads: { type: "string", default: "1" },
    words: { type: "string", default: "24" },
  },
});

interface Setup { name: string; b: Behaviour; offered: ActionDef[]; schema: Record<string, unknown>; tail: TailRequest; system: string }
function setup(name: string, b: Behaviour, refs: RefNames, system: string): Setup {
  const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs }).offered;
  const schema = tailSchema(b, offered, refs);
  const gate = tailGate(b, offered, refs);
  return { name, b, offered, schema, system, tail: { delimiter: BEHAVIOUR_DELIMITER, jsonSchema: schema, maxTokens: tailTokenBound(schema), ...(gate ? { gate } : {}) } };
}
const labelB = resolveBehaviour(labelShop.behaviour as any)!;
const labelled = setup("labelled", labelB, { mind: [], location: [], item: labelShop.items }, `${labelShop.system}\nYou sell: ${labelShop.items.join(", ")}.\n${behaviourBlock(labelB)}`);
const shopSetup = setup("shopkeeper", shop.b, shop.refs, shop.system);

type Turn = { s: Setup; line: string; action: { name: string; params: Record<string, unknown> } | null | undefined; key: string };
const parts = args.half === "none" ? [] : args.half.split(",");
const turns: Turn[] = [
  ...shop.lines.map((line, i) => ({ s: shopSetup, line, action: undefined, key: `shop${i}` })),
  ...labelledTurns.map((t, i) => ({ ...t, i, part: halfOf(i) as string })).concat(thirdTurns.map((t, i) => ({ ...t, i: 100 + i, part: "third" })))
    .filter((t) => parts.includes(t.part))
    .map((t) => ({ s: labelled, line: t.line, action: t.action, key: `lab${t.i}` })),
];

const engine = await LlmEngine.load({ modelPath: benchModelPath(args.model), threads: Number(args.threads), parallel: 1, contextSize: 2048 });
const delimiterTokens = engine.countTokens(BEHAVIOUR_DELIMITER);
const load0 = loadavg()[0];
type Mode = "stepwise" | "batched";
interface Row { mode: Mode; set: string; t: TailResult; valid: boolean; acted: boolean; calledFor: boolean | null; right: boolean; paramsRight: boolean; json: number; values: number; punctuation: number }
const rows: Row[] = [];
let n = 0;
for (let seed = 1; seed <= Number(args.seeds); seed++) {
  for (const turn of turns) {
    const order: Mode[] = n++ % 2 ? ["batched", "stepwise"] : ["stepwise", "batched"];
    for (const mode of order) {
      const messages: ChatMessage[] = [{ role: "system", content: turn.s.system }, { role: "user", content: turn.line }];
      const r = await engine.generate({ conversationKey: `steps:${mode}:${turn.key}:${seed}`, messages, maxTokens: Number(args.words), temperature: 0.7, seed, minTokens: 1, tail: { ...turn.s.tail, ...(mode === "stepwise" ? { stepwise: true } : {}) } });
      const t = r.tail!;
      const p = parseTail(t.text, turn.s.schema, turn.s.b, turn.s.offered, 1);
      const acted = p.valid && p.actions.length > 0;
      const hit = turn.action ? p.actions.find((a) => a.name === turn.action!.name) : undefined;
      // Where the JSON's tokens go: the values the model chose (emotion, intensity, trust, names, parameters) and the rest
      // (keys, quotes, colons, commas, brackets): the JSON written again with every value replaced by nothing, counted.
      const json = t.tokens - delimiterTokens;
      const skeleton = p.valid ? engine.countTokens(t.text.replace(/"(?:[^"\\]|\\.)*"(?!:)|-?\d+|true|false/g, (m) => (m.startsWith('"') ? '""' : ""))) : json;
      rows.push({ mode, set: turn.s.name, t, valid: p.valid, acted, calledFor: turn.action === undefined ? null : turn.action !== null, right: !!hit, paramsRight: !!hit && JSON.stringify(hit.params) === JSON.stringify(turn.action!.params), json, values: json - skeleton, punctuation: skeleton });
      console.error(`${mode} ${turn.key} s${seed} | tokens ${t.tokens} model ${t.modelTokens} decodes ${t.decodes} forced ${t.forcedTokens ?? 0} ms ${t.ms.toFixed(0)} | p(act) ${t.gate?.actProbability.toFixed(3) ?? "–"} | ${r.text.replace(/\n/g, " ")} | ${t.text}`);
    }
  }
}
await engine.dispose();

const median = (xs: number[]) => (xs.length ? [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)] : NaN);
const pct = (k: number, d: number) => `${d ? ((100 * k) / d).toFixed(0) : "–"} % (${k}/${d})`;
console.log(`machine: ${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores, load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}; model ${args.model}; threads ${args.threads}; words ≤ ${args.words} tokens; temperature 0.7; seeds ${args.seeds}; gate on (default threshold)`);
console.log("| set | mode | tails | valid | acted | tail tokens p50 (counted: delimiter + JSON) | JSON: values / keys and punctuation p50 | forced p50 | through the model p50 | decode steps p50 | tail ms p50 | recall | false actions | parameters right |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const set of ["shopkeeper", "labelled"]) {
  for (const mode of ["stepwise", "batched"] as Mode[]) {
    const rs = rows.filter((r) => r.set === set && r.mode === mode);
    if (!rs.length) continue;
    const called = rs.filter((r) => r.calledFor === true), none = rs.filter((r) => r.calledFor === false);
    console.log(
      `| ${set} | ${mode} | ${rs.length} | ${pct(rs.filter((r) => r.valid).length, rs.length)} | ${rs.filter((r) => r.acted).length} | ${median(rs.map((r) => r.t.tokens))} | ${median(rs.map((r) => r.values))} / ${median(rs.map((r) => r.punctuation))} | ${median(rs.map((r) => r.t.forcedTokens ?? 0))} | ${median(rs.map((r) => r.t.modelTokens ?? NaN))} | ${median(rs.map((r) => r.t.decodes ?? NaN))} | ${median(rs.map((r) => r.t.ms)).toFixed(0)} | ${set === "labelled" ? pct(called.filter((r) => r.right).length, called.length) : "–"} | ${set === "labelled" ? pct(none.filter((r) => r.acted).length, none.length) : "–"} | ${set === "labelled" ? pct(called.filter((r) => r.paramsRight).length, called.filter((r) => r.right).length) : "–"} |`,
    );
  }
}
const pairs = (set: string, f: (r: Row) => number) => {
  const s = rows.filter((r) => r.set === set && r.mode === "stepwise"), b = rows.filter((r) => r.set === set && r.mode === "batched");
  return median(b.map((r, i) => f(r) / f(s[i])));
};
for (const set of ["shopkeeper", "labelled"]) if (rows.some((r) => r.set === set)) console.log(`${set}: batched ÷ stepwise, median per line: decode steps ${pairs(set, (r) => r.t.decodes ?? NaN).toFixed(2)}, tail ms ${pairs(set, (r) => r.t.ms).toFixed(2)}, tokens through the model ${pairs(set, (r) => r.t.modelTokens ?? NaN).toFixed(2)}`);
