/**
 * Conditions per turn: every document's condition evaluated against one turn's scope (200 state keys),
 * at 10,000 documents. Side by side, in one run:
 *   - per document: 10,000 evaluations of compiled conditions (all distinct texts),
 *   - per distinct condition: 10,000 documents sharing 100 texts, each evaluated once (TurnConditions),
 *   - @marcbachmann/cel-js's own evaluator on the same 10,000 texts (a reference for the cost of CEL's
 *     evaluation; its semantics differ — a missing key is an error — so every key is set for it).
 * Each turn gets a new scope (other values), so no result is reused across turns.
 * Last, the whole condition part of a turn's gather step through SQLite (gatherConditions: the scope
 * read from the state tables, every gated document read, each distinct condition evaluated once).
 *   bun bench/conditions.ts [--docs 10000] [--keys 200] [--turns 300] [--distinct 100]
 */
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Environment } from "@marcbachmann/cel-js";
import { compiledCondition, TurnConditions } from "../src/conditions/compileCondition.ts";
import { emptyScope, type Scope } from "../src/conditions/scope.ts";
import type { StateValue } from "../src/state/stateKeys.ts";
import { ManualClock } from "../src/core/clock.ts";
import { openDatabase, writeTx } from "../src/db/openDatabase.ts";
import { createProject } from "../src/projects/projectService.ts";
import { insertDocumentRow } from "../src/lore/documents/documentStore.ts";
import { writeState } from "../src/state/stateService.ts";
import { gatherConditions } from "../src/retrieval/turnGate.ts";

const { values: args } = parseArgs({
  options: { docs: { type: "string", default: "10000" }, keys: { type: "string", default: "200" }, turns: { type: "string", default: "300" }, distinct: { type: "string", default: "100" } },
});
const DOCS = Number(args.docs);
const KEYS = Number(args.keys);
const TURNS = Number(args.turns);
const DISTINCT = Number(args.distinct);

let seed = 7;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];

// 200 keys of three kinds, as a game would have them: quest stages, flags, faction standings.
const numbers = Array.from({ length: KEYS * 0.4 }, (_, i) => `quest.q${i}.stage`);
const flags = Array.from({ length: KEYS * 0.4 }, (_, i) => `flag.f${i}`);
const strings = Array.from({ length: KEYS * 0.2 }, (_, i) => `faction.g${i}`);
const STANDINGS = ["friendly", "hostile", "neutral"];

/** A condition like a writer's: two to four comparisons of keys, trust and turn. */
function condition(i: number): string {
  const parts = [`${pick(numbers)} >= ${i % 7}`, `${pick(flags)}`, `${pick(strings)} == "${pick(STANDINGS)}"`, `trust >= ${i % 5}`, `!${pick(flags)}`, `has(${pick(numbers)})`, `turn > ${i % 9}`];
  const n = 2 + (i % 3);
  const chosen = Array.from({ length: n }, () => pick(parts));
  return i % 2 ? chosen.join(" && ") : `(${chosen[0]} || ${chosen[1]}) && ${chosen.slice(2).join(" && ") || "true"}`;
}

function scopeFor(turn: number): Scope {
  const player = new Map<string, StateValue>();
  const world = new Map<string, StateValue>();
  numbers.forEach((k, i) => (i % 2 ? world : player).set(k, (i + turn) % 8));
  flags.forEach((k, i) => (i % 3 ? world : player).set(k, (i + turn) % 2 === 0));
  strings.forEach((k, i) => world.set(k, STANDINGS[(i + turn) % 3]));
  return emptyScope({ player, world, trust: turn % 6, turn });
}

const distinctTexts = Array.from({ length: DOCS }, (_, i) => condition(i));
const shared = Array.from({ length: DISTINCT }, (_, i) => condition(i + 1_000_000));
const sharedDocs = Array.from({ length: DOCS }, (_, i) => shared[i % DISTINCT]);
const scopes = Array.from({ length: TURNS }, (_, t) => scopeFor(t));

const c0 = performance.now();
for (const text of distinctTexts) compiledCondition(text);
const compileMs = performance.now() - c0;

interface Row {
  label: string;
  p50: number;
  p99: number;
  /** this process's CPU time (user + system) per turn: what the turn cost, without the waits of a shared machine */
  cpu50: number;
  cpu99: number;
  open: number;
}

function perTurn(label: string, turns: number, run: (s: Scope) => number): Row {
  for (let t = 0; t < 3; t++) run(scopes[t]); // warm the JIT
  const times: number[] = [];
  const cpu: number[] = [];
  let open = 0;
  for (let t = 0; t < turns; t++) {
    const c = process.cpuUsage();
    const s = performance.now();
    open += run(scopes[t % scopes.length]);
    times.push(performance.now() - s);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  return { label, p50: pct(times, 0.5), p99: pct(times, 0.99), cpu50: pct(cpu, 0.5), cpu99: pct(cpu, 0.99), open: open / turns };
}

// The compile cache holds 4096 texts: per-document evaluation of 10,000 distinct texts reads compiled
// closures kept by the caller (as the turn's gate keeps them), not 10,000 cache misses.
const compiled = distinctTexts.map((t) => compiledCondition(t));
const rows = [
  perTurn(`per document (${DOCS} distinct conditions)`, TURNS, (s) => {
    let n = 0;
    for (const c of compiled) if (c.holds(s)) n++;
    return n;
  }),
  perTurn(`per distinct condition (${DOCS} documents, ${DISTINCT} texts)`, TURNS, (s) => {
    const turn = new TurnConditions(s);
    let n = 0;
    for (const text of sharedDocs) if (turn.holds(text)) n++;
    return n;
  }),
];

// CEL's own evaluator: every key set (missing keys are errors there), numbers as CEL values.
const env = new Environment({ unlistedVariablesAreDyn: true });
const celExprs = distinctTexts.map((t) => env.parse(t));
const celContext = (s: Scope) => {
  const root: Record<string, any> = { trust: s.trust, turn: s.turn };
  for (const [k, v] of [...s.world, ...s.player]) {
    const parts = k.split(".");
    let o = root;
    for (const p of parts.slice(0, -1)) o = o[p] ??= {};
    o[parts.at(-1)!] = typeof v === "number" ? v + 0.5 - 0.5 : v;
  }
  return root;
};
const celTurns = Math.min(TURNS, 20);
rows.push(
  perTurn(`cel-js evaluator, per document (${DOCS})`, celTurns, (s) => {
    const ctx = celContext(s);
    let n = 0;
    for (const e of celExprs) {
      try {
        if (e(ctx) === true) n++;
      } catch {}
    }
    return n;
  }),
);

// The turn's gather step through SQLite: 10,000 documents with a condition (100 distinct texts),
// 200 keys (world and player), a different player state each turn.
const ctx = { db: openDatabase(":memory:"), clock: new ManualClock() };
const projectId = createProject(ctx, { name: "Bench" }).id;
writeTx(ctx.db, () => {
  for (let i = 0; i < DOCS; i++) {
    insertDocumentRow(ctx.db, projectId, `doc_${i}`, { key: null, name: `Doc ${i}`, content: "x", tagIds: [], locationId: null, when: sharedDocs[i] }, "2026-01-01T00:00:00Z");
  }
});
const s0 = scopes[0];
writeState(ctx, projectId, null, { set: Object.fromEntries([...s0.world].slice(0, KEYS / 2)) });
const players = Array.from({ length: 20 }, (_, i) => `player-${i}`);
players.forEach((id, i) => writeState(ctx, projectId, id, { set: Object.fromEntries([...scopes[i].player].slice(0, KEYS / 2)) }));
const mind = { knowledgeTags: ["a"], knowledge: [{ tag: "b", when: shared[0] }] };
let turnNo = 0;
rows.push(
  perTurn(`gather through SQLite (${DOCS} gated documents, ${DISTINCT} texts)`, Math.min(TURNS, 100), () => {
    const g = gatherConditions(ctx, projectId, { mind, playerId: players[turnNo++ % players.length], history: [] });
    let open = 0;
    for (let i = 0; i < DISTINCT; i++) if (!g.lore.blocks(`doc_${i}`)) open++; // one document of each condition
    return (open * DOCS) / DISTINCT;
  }),
);

const base = rows[0].cpu50;
console.log(`${DOCS} documents, ${KEYS} state keys, ${TURNS} turns; compiling ${DOCS} conditions once: ${compileMs.toFixed(0)} ms`);
console.log(`machine: ${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores, load ${loadavg()[0].toFixed(1)}`);
console.log("| evaluation per turn | wall p50 ms | wall p99 ms | CPU p50 ms | CPU p99 ms | CPU p50 vs per document | conditions true (mean) |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${r.label} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.cpu50.toFixed(3)} | ${r.cpu99.toFixed(3)} | ${(r.cpu50 / base).toFixed(3)}× | ${r.open.toFixed(0)} |`);
}
