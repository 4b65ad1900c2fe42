import { Environment } from "@marcbachmann/cel-js";
import { isStateKey, keyProblem, type StateValue } from "../state/stateKeys.ts";
import type { Arithmetic, Comparison, Node, RefScope } from "./conditionIr.ts";

/**
 * Conditions are written in CEL (Common Expression Language) syntax — `trust >= 3 && quest.flood.stage >= 2`,
 * `has(quest.crypt)`, `weather in ["rain", "storm"]` — parsed by @marcbachmann/cel-js, then turned into
 * Lorehold's own small tree (conditionIr.ts) and evaluated by compileCondition.ts.
 *
 * Why this library: a maintained, dependency-free CEL parser that never runs `eval`/`new Function`, with
 * structural limits built in (AST nodes, nesting depth, list size) and a standard, documented syntax that
 * writers can look up (`has()` is CEL's presence test). Why not its evaluator: CEL is strict where
 * conditions must be forgiving — a missing key is an error there, so `!quest.sealed` could never be true
 * before the key is set — and it evaluates at ~4 µs a condition, where a turn may check thousands
 * (bench/conditions.ts). Considered and not taken: JSON Logic (json-logic-js; JSON, not a text writers
 * type), filtrex (compiles to JavaScript with `new Function`), jexl (unmaintained; open reports of reading
 * `constructor`/`__proto__` through member access), expr-eval (unmaintained; prototype pollution and code
 * execution, CVE-2025-12735).
 */

export const CONDITION_LIMITS = {
  chars: 1000,
  /** nesting (parentheses, unary operators, member chains) as the parser counts it */
  depth: 20,
  nodes: 200,
  listItems: 32,
  stringChars: 200,
  /** largest magnitude of a number literal (every integer up to it is exact in a double) */
  number: 1e15,
} as const;

const env = new Environment({
  unlistedVariablesAreDyn: true,
  limits: {
    maxAstNodes: CONDITION_LIMITS.nodes,
    maxDepth: CONDITION_LIMITS.depth,
    maxListElements: CONDITION_LIMITS.listItems,
    maxMapEntries: 0,
    maxCallArguments: 2,
  },
});

/** A problem in a condition's text: what is wrong and where (0-based character offset). */
export interface ConditionProblem {
  at: number;
  reason: string;
}

export class ConditionRefused extends Error {
  constructor(readonly problems: ConditionProblem[]) {
    super(problems.map((p) => p.reason).join("; "));
  }
}

interface CelNode {
  op: string;
  args: unknown;
  pos: number;
}

const COMPARISONS = new Set(["==", "!=", "<", "<=", ">", ">="]);
const ARITHMETIC = new Set(["+", "-", "*", "/", "%"]);

/** Parses a condition's text into the tree conditions evaluate; throws ConditionRefused listing every problem. */
export function parseCondition(text: string): Node {
  if (typeof text !== "string" || text.trim() === "") throw new ConditionRefused([{ at: 0, reason: "a condition is a non-empty expression" }]);
  if (text.length > CONDITION_LIMITS.chars) throw new ConditionRefused([{ at: 0, reason: `at most ${CONDITION_LIMITS.chars} characters` }]);
  let ast: CelNode;
  try {
    ast = env.parse(text).ast as CelNode;
  } catch (e) {
    const err = e as { summary?: string; message?: string; range?: { start?: number } };
    throw new ConditionRefused([{ at: err.range?.start ?? 0, reason: `syntax: ${err.summary ?? err.message ?? String(e)}` }]);
  }
  const problems: ConditionProblem[] = [];
  const node = toNode(ast, problems);
  if (!problems.length && nesting(node) > CONDITION_LIMITS.depth) problems.push({ at: 0, reason: `nested more than ${CONDITION_LIMITS.depth} levels deep` });
  if (problems.length) throw new ConditionRefused(problems);
  return node;
}

/**
 * How deeply a tree nests, a chain of one operator (`a || b || c`, `1 + 2 + 3`) counting as one
 * level: a long list of alternatives is fine, `!!!!…` or `((((…))))` is not. The parser's own depth
 * limit does not see repeated unary operators.
 */
function nesting(n: Node, parent?: string): number {
  const same = (child: Node) => ("op" in child && "op" in n ? child.op === n.op : child.k === n.k) && (n.k === "and" || n.k === "or" || n.k === "arith");
  const step = (child: Node) => nesting(child, n.k) + (same(child) ? 0 : 1);
  switch (n.k) {
    case "not":
    case "neg":
      return step(n.a);
    case "and":
    case "or":
    case "cmp":
    case "arith":
      return Math.max(step(n.a), step(n.b));
    case "cond":
      return Math.max(step(n.c), step(n.a), step(n.b));
    case "in":
      return step(n.a);
    default:
      return parent === undefined ? 1 : 0;
  }
}

function toNode(n: CelNode, problems: ConditionProblem[]): Node {
  const pos = n.pos ?? 0;
  const fail = (reason: string): Node => {
    problems.push({ at: pos, reason });
    return { k: "lit", v: false, pos };
  };
  const args = n.args as unknown[];
  switch (n.op) {
    case "value":
      return literal(n.args, pos, fail);
    case "id":
    case ".":
      return reference(n, fail);
    case "!_":
      return { k: "not", a: toNode(n.args as CelNode, problems), pos };
    case "-_":
      return { k: "neg", a: toNode(n.args as CelNode, problems), pos };
    case "&&":
    case "||":
      return { k: n.op === "&&" ? "and" : "or", a: toNode(args[0] as CelNode, problems), b: toNode(args[1] as CelNode, problems), pos };
    case "?:":
      return { k: "cond", c: toNode(args[0] as CelNode, problems), a: toNode(args[1] as CelNode, problems), b: toNode(args[2] as CelNode, problems), pos };
    case "in": {
      const list = args[1] as CelNode;
      if (list.op !== "list") return fail("`in` takes a list of values on its right, e.g. weather in [\"rain\", \"storm\"]");
      return { k: "in", a: toNode(args[0] as CelNode, problems), list: listOf(list, problems), pos };
    }
    case "list":
      return fail("a list is allowed only on the right of `in`");
    case "call":
      return call(n, problems, fail);
    case "rcall":
      return fail(`unknown function '${String(args[0])}' (conditions know has(key))`);
    case "[]":
    case "[?]":
    case ".?":
      return fail("state keys are written as dotted names (quest.flood.stage), not with [] or ?");
    case "map":
      return fail("maps are not supported in conditions");
    default:
      if (COMPARISONS.has(n.op)) return { k: "cmp", op: n.op as Comparison, a: toNode(args[0] as CelNode, problems), b: toNode(args[1] as CelNode, problems), pos };
      if (ARITHMETIC.has(n.op)) return { k: "arith", op: n.op as Arithmetic, a: toNode(args[0] as CelNode, problems), b: toNode(args[1] as CelNode, problems), pos };
      return fail(`'${n.op}' is not supported in conditions`);
  }
}

function literal(v: unknown, pos: number, fail: (reason: string) => Node): Node {
  if (typeof v === "boolean") return { k: "lit", v, pos };
  if (typeof v === "bigint" || typeof v === "number") {
    const num = Number(v);
    if (!Number.isFinite(num) || Math.abs(num) > CONDITION_LIMITS.number) return fail(`numbers are at most ${CONDITION_LIMITS.number} in size`);
    return { k: "lit", v: num, pos };
  }
  if (typeof v === "string") {
    if (v.length > CONDITION_LIMITS.stringChars) return fail(`a text value has at most ${CONDITION_LIMITS.stringChars} characters`);
    return { k: "lit", v, pos };
  }
  if (v === null) return fail("null is not a value here: has(key) tests whether a key is set");
  return fail("only true/false, numbers and text are values in conditions");
}

/** `trust`, `turn`, `quest.flood.stage`, `world.weather`, `player.pose.sitting`. */
function reference(n: CelNode, fail: (reason: string) => Node): Node {
  const parts: string[] = [];
  let cur = n;
  while (cur.op === ".") {
    const [inner, field] = cur.args as [CelNode, string];
    parts.unshift(field);
    cur = inner;
  }
  if (cur.op !== "id") return fail("only state keys have fields (quest.flood.stage)");
  const root = cur.args as string;
  const pos = cur.pos ?? n.pos ?? 0;
  if (root === "trust" || root === "turn") return parts.length ? fail(`'${root}' is a number and has no fields`) : { k: root, pos };
  let scope: RefScope = "any";
  if (root === "world" || root === "player") {
    if (parts.length === 0) return fail(`'${root}' names a scope: write ${root}.<key>`);
    scope = root;
  } else parts.unshift(root);
  const key = parts.join(".");
  if (!isStateKey(key)) return fail(`'${key}' is not a state key: ${keyProblem(key)}`);
  return { k: "ref", scope, key, pos };
}

function listOf(n: CelNode, problems: ConditionProblem[]): Node & { k: "list" } {
  const items: StateValue[] = [];
  for (const item of n.args as CelNode[]) {
    const v = toNode(item, problems);
    if (v.k === "lit") items.push(v.v);
    else if (v.k === "neg" && v.a.k === "lit" && typeof v.a.v === "number") items.push(-v.a.v);
    else problems.push({ at: item.pos ?? n.pos, reason: "a list in a condition holds values only (no keys or expressions)" });
  }
  if (new Set(items.map((i) => typeof i)).size > 1) problems.push({ at: n.pos, reason: "a list holds values of one type" });
  return { k: "list", items, pos: n.pos };
}

function call(n: CelNode, problems: ConditionProblem[], fail: (reason: string) => Node): Node {
  const [name, callArgs] = n.args as [string, CelNode[]];
  if (name !== "has") return fail(`unknown function '${name}' (conditions know has(key))`);
  if (callArgs.length !== 1) return fail("has() takes one state key");
  const ref = toNode(callArgs[0], problems);
  if (ref.k !== "ref") return fail("has() takes a state key, e.g. has(quest.crypt) or has(world.weather)");
  return { k: "has", ref, pos: n.pos };
}
