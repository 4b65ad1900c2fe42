// A typed turn's quality on a real model, against the labelled set in bench/support/behaviourLabels.ts (written
// before this was measured, split into a tuning half and a held-out half before anything was tuned): structured
// validity, action recall and precision, parameter accuracy, false actions (an action where none was called
// for), emotion agreement; and its cost: the first token with behaviour on ÷ off on the same prompt, and the
// tail's tokens. Each variant — `before` (the block and tail as they were before tuning, bench/support/
// behaviourBefore.ts) and `now` (src/behaviour) — runs in the same process on the same turns and seeds.
// `gate:<p>` is `now` with the action gate (src/behaviour/tailSchema.ts tailGate) at least probability p; with
// `--thresholds a,b,…` the bench also scores every threshold ≥ p from the same run (a turn whose act probability is
// below a threshold would have taken "none"), so one run at a low p calibrates them all. `--half third` is the
// third labelled set (thirdTurns), held out from all tuning of the gate. A variant prefixed `remote:` (`remote:now`,
// `remote:gate:0.9`) runs through a remote pool on a llama-server loading the same model (`--no-repack`, the same
// threads), started only when a variant needs it; `--remote` prefixes every variant. Its table adds the HTTP
// requests per turn by path.
// Usage: bun bench/behaviourAccuracy.ts [--model qwen|smol] [--variants before,actsFirst,now,gate:0.5,remote:gate:0.9] [--remote] [--calls both|action|none] [--half both|tuning|heldout|third|all|heldout,third]
//          [--seeds 2] [--first-seed 1] [--threads 1] [--words 24] [--pairs 6] [--thresholds 0.3,0.5] [--verbose]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { appendFileSync } from "node:fs";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import type { ChatMessage, TailRequest } from "../src/llm/types.ts";
import { tailSignAt, tailSignOf } from "../src/llm/tailSign.ts";
import { resolveBehaviour, type ActionDef, type Behaviour } from "../src/behaviour/resolveBehaviour.ts";
import { BEHAVIOUR_DELIMITER, behaviourBlock } from "../src/behaviour/behaviourPrompt.ts";
import { conditionsUnavailable, offerActions } from "../src/behaviour/offerActions.ts";
import { tailGate, tailSchema, tailTokenBound, type RefNames } from "../src/behaviour/tailSchema.ts";
import { parseTail } from "../src/behaviour/parseTail.ts";
import { benchModelPath } from "./support/benchModel.ts";
import { RemotePool } from "../src/generation/remote/RemotePool.ts";
import { llamaServerBinary, startLlamaServer } from "../test/support/llamaServer.ts";
import { halfOf, labelledTurns, shopkeeper, thirdTurns, type LabelHalf } from "./support/behaviourLabels.ts";
import { BEFORE_DELIMITER, behaviourBlockBefore, tailSchemaBefore } from "./support/behaviourBefore.ts";
import { ACTS_FIRST_DELIMITER, behaviourBlockActsFirst, tailSchemaActsFirst } from "./support/behaviourActsFirst.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string", default: "qwen" },
    variants: { type: "string", default: "before,now" },
    half: { type: "string", default: "both" },
    seeds: { type: "string", default: "2" },
    "first-seed": { type: "string", default: "1" },
    threads: { type: "string", default: "1" },
    words: { type: "string", default: "24" },
    pairs: { type: "string", default: "6" },
    thresholds: { type: "string", default: "" },
    /** write each turn's outcome as a JSON line here (to score a gate run later at a threshold chosen elsewhere) */
    dump: { type: "string", default: "" },
    verbose: { type: "boolean", default: false },
    remote: { type: "boolean", default: false },
    /** only the lines that call for an action (`action`) or for none (`none`): two processes can split a run */
    calls: { type: "string", default: "both" },
  },
});
const modelPath = benchModelPath(args.model);

interface Variant {
  name: string;
  delimiter: string;
  block: (b: Behaviour) => string;
  schema: (b: Behaviour, offered: ActionDef[], refs: RefNames) => Record<string, unknown>;
  /** the grammar allows JSON's optional whitespace (the tail before it was made compact) */
  spaced?: boolean;
  /** the action gate's least probability (`gate:<p>`) */
  gate?: number;
  /** through a remote pool on llama-server (`remote:<variant>`) */
  remote?: boolean;
}
const VARIANTS: Record<string, Variant> = {
  before: { name: "before", delimiter: BEFORE_DELIMITER, block: behaviourBlockBefore, schema: tailSchemaBefore, spaced: true },
  actsFirst: { name: "actsFirst", delimiter: ACTS_FIRST_DELIMITER, block: behaviourBlockActsFirst, schema: tailSchemaActsFirst, spaced: true },
  now: { name: "now", delimiter: BEHAVIOUR_DELIMITER, block: behaviourBlock, schema: tailSchema },
};

const b = resolveBehaviour(shopkeeper.behaviour as any)!;
const refs: RefNames = { mind: [], location: [], item: shopkeeper.items };
const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs }).offered;
type Part = LabelHalf | "third";
const halves: Part[] = args.half === "both" ? ["tuning", "heldout"] : args.half === "all" ? ["tuning", "heldout", "third"] : (args.half.split(",") as Part[]);
const allTurns = [...labelledTurns.map((t, i) => ({ ...t, i, half: halfOf(i) as Part })), ...thirdTurns.map((t, i) => ({ ...t, i: 100 + i, half: "third" as Part }))];
// the parts taken in turn (one line of each, then the next), so a run cut short has lines of every part
const called = (t: (typeof allTurns)[number]) => args.calls === "both" || (args.calls === "none") === (t.action === null);
const byPart = halves.map((h) => allTurns.filter((t) => t.half === h && called(t)));
const turns = Array.from({ length: Math.max(...byPart.map((p) => p.length)) }, (_, k) => byPart.flatMap((p) => (k < p.length ? [p[k]] : []))).flat();
const variantOf = (n: string): Variant => {
  if (n.startsWith("remote:")) return { ...variantOf(n.slice(7)), name: n, remote: true };
  return n.startsWith("gate:") ? { ...VARIANTS.now, name: n, gate: Number(n.slice(5)) } : VARIANTS[n];
};
const variants = args.variants.split(",").map((n) => variantOf(args.remote && !n.startsWith("remote:") ? `remote:${n}` : n));

/** HTTP requests to llama-server by path, per variant (the gate's probe is one more /completion a tail) */
const requests: Record<string, Record<string, number>> = {};
let counting: Record<string, number> | null = null;
const engine = variants.some((v) => !v.remote) ? await LlmEngine.load({ modelPath, threads: Number(args.threads), parallel: 1, contextSize: 2048 }) : null;
const remote = variants.some((v) => v.remote) ? await startRemote(modelPath, Number(args.threads)) : null;
const generate = (v: Variant, req: Parameters<LlmEngine["generate"]>[0]) => (v.remote ? remote!.pool.generate(req) : engine!.generate(req));
const words = Number(args.words);
const seeds = Number(args.seeds);
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)] : NaN);
const loadBefore = loadavg()[0];

interface Tally {
  total: number; valid: number; calledFor: number; recalled: number; taken: number; takenRight: number;
  paramsRight: number; noneTurns: number; falseActions: number; emotionAgree: number; tailTokens: number[]; tailMs: number[]; tailEvaluated: number[]; noWords: number;
  /** turns whose streamed words held a tail the model wrote itself (a player saw it before the words were cut), and whose returned words still do */
  tailInWords: number; tailLeft: number;
}
const tally = (): Tally => ({ total: 0, valid: 0, calledFor: 0, recalled: 0, taken: 0, takenRight: 0, paramsRight: 0, noneTurns: 0, falseActions: 0, emotionAgree: 0, tailTokens: [], tailMs: [], tailEvaluated: [], noWords: 0, tailInWords: 0, tailLeft: 0 });
const results: { variant: string; half: Part; t: Tally; ttft?: number }[] = [];
const ttft: Record<string, { on: number; off: number }> = {};

/** One labelled turn's outcome (the tally is made from these, so a gate run can be scored at a higher threshold). */
interface Outcome {
  half: Part; label: (typeof turns)[number]; valid: boolean; actions: { name: string; params: Record<string, unknown> }[];
  emotion: string | null; tailTokens: number | null; tailMs: number | null; tailEvaluated: number | null; noWords: boolean; tailInWords: boolean; tailLeft: boolean; actProbability?: number;
}
function tallyOf(outcomes: Outcome[], threshold?: number): Tally {
  const t = tally();
  for (const o of outcomes) {
    t.total++;
    if (o.tailInWords) t.tailInWords++;
    if (o.tailLeft) t.tailLeft++;
    if (o.noWords) t.noWords++;
    if (o.tailTokens !== null) t.tailTokens.push(o.tailTokens);
    if (o.tailMs !== null) t.tailMs.push(o.tailMs);
    if (o.tailEvaluated !== null) t.tailEvaluated.push(o.tailEvaluated);
    if (!o.valid) continue;
    t.valid++;
    // below the threshold the gate would have stayed: no action (the feeling is the one sampled in this run)
    const actions = threshold !== undefined && (o.actProbability ?? 0) < threshold ? [] : o.actions;
    const turn = o.label;
    if (o.emotion === turn.emotion) t.emotionAgree++;
    t.taken += actions.length;
    t.takenRight += actions.filter((a) => a.name === turn.action?.name).length;
    if (turn.action === null) {
      t.noneTurns++;
      if (actions.length) t.falseActions++;
    } else {
      t.calledFor++;
      const hit = actions.find((a) => a.name === turn.action!.name);
      if (hit) {
        t.recalled++;
        if (JSON.stringify(hit.params) === JSON.stringify(turn.action.params)) t.paramsRight++;
      }
    }
  }
  return t;
}
const thresholds = args.thresholds ? args.thresholds.split(",").map(Number) : [];
const probabilityLines: string[] = [];

// Variants interleaved turn by turn (their order turned each turn), so a run cut short still compares them on the
// same lines, and the box's load falls on each alike.
const setups = variants.map((v) => {
  requests[v.name] = {};
  const schema = v.schema(b, offered, refs);
  const gate = v.gate !== undefined ? tailGate(b, offered, refs, v.gate) : undefined;
  const tail: TailRequest = { delimiter: v.delimiter, jsonSchema: schema, maxTokens: tailTokenBound(schema), ...(v.spaced ? { spacedJson: true } : {}), ...(gate ? { gate } : {}) };
  const system = `${shopkeeper.system}\nYou sell: ${shopkeeper.items.join(", ")}.\n${v.block(b)}`;
  const messages = (line: string, prefix = ""): ChatMessage[] => [{ role: "system", content: prefix + system }, { role: "user", content: line }];
  return { v, schema, tail, messages, outcomes: [] as Outcome[] };
});
let rotation = 0;
for (const turn of turns) {
  for (let s = 0; s < seeds; s++) {
    const order = setups.map((_, k) => setups[(k + rotation) % setups.length]);
    rotation++;
    for (const { v, schema, tail, messages, outcomes } of order) {
      let streamed = "";
      counting = requests[v.name];
      const r = await generate(v, { conversationKey: `acc:${v.name}:${turn.i}:${s}`, messages: messages(turn.line), maxTokens: words, temperature: 0.7, seed: Number(args["first-seed"]) + s, minTokens: 1, tail, onToken: (p) => (streamed += p) });
      counting = null;
      const sign = tailSignOf(tail);
      const p = r.tail ? parseTail(r.tail.text, schema, b, offered, 1) : null;
      const o: Outcome = {
        half: turn.half, label: turn, valid: !!p?.valid, actions: p?.valid ? p.actions : [], emotion: p?.valid ? p.emotion.name : null,
        tailTokens: r.tail ? r.tail.tokens : null, tailMs: r.tail?.ms ?? null, tailEvaluated: r.tail?.evaluatedTokens ?? null,
        // the words are the reply: a prompt that makes the model skip them to act is no improvement
        noWords: !/\p{L}/u.test(r.text),
        tailInWords: tailSignAt(streamed, sign).at !== null, tailLeft: tailSignAt(r.text, sign).at !== null,
        ...(r.tail?.gate ? { actProbability: r.tail.gate.actProbability } : {}),
      };
      outcomes.push(o);
      if (args.dump) appendFileSync(args.dump, `${JSON.stringify({ variant: v.name, seed: Number(args["first-seed"]) + s, ...o, label: { line: turn.line, action: turn.action, emotion: turn.emotion } })}\n`);
      if (o.actProbability !== undefined) probabilityLines.push(`${v.name} ${turn.half} seed ${Number(args["first-seed"]) + s} p(act) ${o.actProbability.toFixed(3)} label ${turn.action?.name ?? "none"} took ${o.actions.map((a) => a.name).join("+") || "none"} | ${turn.line.slice(0, 50)}`);
      if (args.verbose) console.error(`${v.name} ${turn.half} ${turn.line.slice(0, 40)} | ${r.text.slice(0, 60).replace(/\n/g, " ")} | ${r.tail?.text} | p(act) ${o.actProbability?.toFixed(3) ?? "–"}`);
    }
  }
}
for (const { v, tail, messages, outcomes } of setups) {
  for (const h of halves) {
    const mine = outcomes.filter((o) => o.half === h);
    results.push({ variant: v.name, half: h, t: tallyOf(mine) });
    for (const th of thresholds.filter((x) => v.gate !== undefined && x > v.gate)) results.push({ variant: `${v.name} scored at ${th}`, half: h, t: tallyOf(mine, th) });
  }

  // The first token, behaviour on and off, on the same prompt: each pair's prompt opens with its own number so
  // neither reuses the other's cache, and the order within a pair alternates.
  const on: number[] = [], off: number[] = [];
  for (let k = 0; k < Number(args.pairs); k++) {
    const line = labelledTurns[(k * 7) % labelledTurns.length].line;
    for (const withTail of k % 2 ? [true, false] : [false, true]) {
      const r = await generate(v, { conversationKey: `ttft:${v.name}:${k}:${withTail}`, messages: messages(line, `(${v.name} ${k}${withTail ? "a" : "b"})\n`), maxTokens: 4, temperature: 0.7, minTokens: 1, ...(withTail ? { tail } : {}) });
      (withTail ? on : off).push(r.timeToFirstTokenMs);
    }
  }
  ttft[v.name] = { on: median(on), off: median(off) };
}
await engine?.dispose();
await remote?.stop();

const pct = (n: number, d: number) => `${d ? ((100 * n) / d).toFixed(0) : "–"} % (${n}/${d})`;
console.log(`machine: ${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores, load ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}; model ${args.model}; threads ${args.threads}; ${turns.length} labelled turns × ${seeds} seeds a variant; words ≤ ${words} tokens; temperature 0.7`);
console.log("| variant | half | validity | action recall (called for) | action precision (taken) | parameters right (recalled) | false actions (none called for) | emotion agreement | replies without words | tail in the streamed words | tail in the returned words | tail tokens p50 | tail ms p50 | tail evaluated tokens p50 | first token on ÷ off |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const line of probabilityLines) console.error(line);
for (const [name, byPath] of Object.entries(requests)) if (Object.keys(byPath).length) console.log(`HTTP requests, ${name}, per turn (${turns.length * seeds} turns): ${Object.entries(byPath).map(([p, n]) => `${p} ${(n / (turns.length * seeds)).toFixed(2)}`).join(", ")}`);
for (const { variant, half, t } of results) {
  const f = ttft[variant.split(" scored at ")[0]];
  console.log(
    `| ${variant} | ${half} | ${pct(t.valid, t.total)} | ${pct(t.recalled, t.calledFor)} | ${pct(t.takenRight, t.taken)} | ${pct(t.paramsRight, t.recalled)} | ${pct(t.falseActions, t.noneTurns)} | ${pct(t.emotionAgree, t.valid)} | ${pct(t.noWords, t.total)} | ${pct(t.tailInWords, t.total)} | ${pct(t.tailLeft, t.total)} | ${median(t.tailTokens)} | ${median(t.tailMs).toFixed(0)} | ${median(t.tailEvaluated)} | ${(f.on / f.off).toFixed(2)} (${f.on.toFixed(0)} / ${f.off.toFixed(0)} ms) |`,
  );
}

/** A llama-server on the bench's model and a remote pool on it; every request it gets is counted by path. */
async function startRemote(model: string, threads: number) {
  const bin = llamaServerBinary();
  if (!bin) throw new Error("no llama-server binary: sh scripts/ci/backends.sh");
  const server = await startLlamaServer({ binary: bin, model, parallel: 1, slotContext: 2048, threads });
  const realFetch = globalThis.fetch;
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    if (counting && url.origin === server.url) counting[url.pathname] = (counting[url.pathname] ?? 0) + 1;
    return realFetch(input, init);
  }) as typeof fetch;
  const pool = new RemotePool({
    backends: [{ url: server.url, model: "bench", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 600_000, kind: "llama-server" }],
    defaultTimeoutMs: 600_000,
    fallbackContextSize: 2048,
  });
  if (!(await pool.probeAll()).every(Boolean)) {
    await server.stop();
    throw new Error(`llama-server not answering: ${pool.status()[0]?.lastError}`);
  }
  // the delimiters' tokens by the server's tokenizer, as a live pool has them once it counted a typed turn's prompt
  // (else a tail's count takes them at a token per byte)
  await pool.prepareCounts(Object.values(VARIANTS).map((v) => v.delimiter));
  return {
    pool,
    stop: async () => {
      globalThis.fetch = realFetch;
      await pool.dispose();
      await server.stop();
    },
  };
}
