import type { StateValue } from "../state/stateKeys.ts";
import type { Node } from "./conditionIr.ts";
import { parseCondition } from "./parseCondition.ts";
import type { Scope } from "./scope.ts";

/**
 * A condition compiled once into a small tree of operations, evaluated by one interpreter function (no
 * `eval`, no `new Function`, no loops: the cost of one evaluation is bounded by the parser's node
 * limit). The semantics, documented in docs/authoring-lore.md
 * ("World state"):
 *
 * - a key that is set nowhere is *unset*; `==`, `!=`, `<`, `<=`, `>`, `>=` and `in` with unset are false;
 *   `!unset` is true; unset in `&&`, `||` and `? :` counts as false; arithmetic with unset is unset;
 * - `has(key)` is true when the key has a value (the player's, the world's or its declared default);
 * - a value of the wrong type at run time (an undeclared key holding text compared with a number) makes
 *   the whole condition false: a condition holds only when it is plainly true (lore stays hidden).
 */

type Value = StateValue | undefined;

/** Thrown inside an evaluation when a value has the wrong type; the condition is then false. */
const MISMATCH = Symbol("mismatch");

const enum Code { Lit, RefAny, RefWorld, RefPlayer, Trust, Turn, Not, Neg, And, Or, Cond, Eq, Ne, Lt, Le, Gt, Ge, Add, Sub, Mul, Div, Mod, In, Has }
const COMPARE: Record<string, Code> = { "==": Code.Eq, "!=": Code.Ne, "<": Code.Lt, "<=": Code.Le, ">": Code.Gt, ">=": Code.Ge };
const ARITH: Record<string, Code> = { "+": Code.Add, "-": Code.Sub, "*": Code.Mul, "/": Code.Div, "%": Code.Mod };

/**
 * One node of a compiled condition. Every node has this one shape and the interpreter below is one
 * function: measured, a tree of closures ran ~10–60× slower once thousands of distinct conditions
 * shared its code (the engine's call sites saw too many different callees); this stays at ~60 ns a
 * condition (bench/conditions.ts).
 */
class Op {
  constructor(
    readonly code: Code,
    readonly a: Op | null = null,
    readonly b: Op | null = null,
    readonly c: Op | null = null,
    readonly key: string = "",
    readonly v: Value = undefined,
    readonly set: ReadonlySet<StateValue> | null = null,
  ) {}
}

function lower(n: Node): Op {
  switch (n.k) {
    case "lit":
      return new Op(Code.Lit, null, null, null, "", n.v);
    case "list":
      throw new Error("a list is evaluated only by `in`");
    case "ref":
      return new Op(n.scope === "any" ? Code.RefAny : n.scope === "world" ? Code.RefWorld : Code.RefPlayer, null, null, null, n.key);
    case "trust":
      return new Op(Code.Trust);
    case "turn":
      return new Op(Code.Turn);
    case "not":
      return new Op(Code.Not, lower(n.a));
    case "neg":
      return new Op(Code.Neg, lower(n.a));
    case "and":
      return new Op(Code.And, lower(n.a), lower(n.b));
    case "or":
      return new Op(Code.Or, lower(n.a), lower(n.b));
    case "cond":
      return new Op(Code.Cond, lower(n.c), lower(n.a), lower(n.b));
    case "cmp":
      return new Op(COMPARE[n.op], lower(n.a), lower(n.b));
    case "arith":
      return new Op(ARITH[n.op], lower(n.a), lower(n.b));
    case "in":
      return new Op(Code.In, lower(n.a), null, null, "", undefined, new Set(n.list.items));
    case "has":
      return new Op(Code.Has, lower(n.ref));
  }
}

function truth(v: Value): boolean {
  if (v === true) return true;
  if (v === false || v === undefined) return false;
  throw MISMATCH;
}

function num(v: Value): number | undefined {
  if (v === undefined || typeof v === "number") return v;
  throw MISMATCH;
}

function run(n: Op, s: Scope): Value {
  switch (n.code) {
    case Code.Lit:
      return n.v;
    case Code.RefAny: {
      const v = s.player.get(n.key);
      if (v !== undefined) return v;
      const w = s.world.get(n.key);
      return w !== undefined ? w : s.defaults.get(n.key);
    }
    case Code.RefWorld: {
      const w = s.world.get(n.key);
      return w !== undefined ? w : s.defaults.get(n.key);
    }
    case Code.RefPlayer:
      return s.player.get(n.key);
    case Code.Trust:
      return s.trust;
    case Code.Turn:
      return s.turn;
    case Code.Not:
      return !truth(run(n.a!, s));
    case Code.Neg: {
      const x = num(run(n.a!, s));
      return x === undefined ? undefined : -x;
    }
    case Code.And:
      return truth(run(n.a!, s)) && truth(run(n.b!, s));
    case Code.Or:
      return truth(run(n.a!, s)) || truth(run(n.b!, s));
    case Code.Cond:
      return truth(run(n.a!, s)) ? run(n.b!, s) : run(n.c!, s);
    case Code.Eq:
    case Code.Ne: {
      const x = run(n.a!, s);
      const y = run(n.b!, s);
      if (x === undefined || y === undefined) return false;
      if (typeof x !== typeof y) throw MISMATCH;
      return n.code === Code.Eq ? x === y : x !== y;
    }
    case Code.Lt:
    case Code.Le:
    case Code.Gt:
    case Code.Ge: {
      const x = run(n.a!, s);
      const y = run(n.b!, s);
      if (x === undefined || y === undefined) return false;
      if (typeof x !== typeof y || typeof x === "boolean") throw MISMATCH;
      if (n.code === Code.Lt) return x < y;
      if (n.code === Code.Le) return x <= y;
      return n.code === Code.Gt ? x > y : x >= y;
    }
    case Code.In: {
      const x = run(n.a!, s);
      return x !== undefined && n.set!.has(x);
    }
    case Code.Has:
      return run(n.a!, s) !== undefined;
    default: {
      const x = num(run(n.a!, s));
      const y = num(run(n.b!, s));
      if (x === undefined || y === undefined) return undefined;
      const r = n.code === Code.Add ? x + y : n.code === Code.Sub ? x - y : n.code === Code.Mul ? x * y : n.code === Code.Div ? x / y : x % y;
      return Number.isFinite(r) ? r : undefined; // x / 0 reads as unset
    }
  }
}

export interface CompiledCondition {
  text: string;
  tree: Node;
  /** true only when the condition plainly holds in this scope */
  holds(scope: Scope): boolean;
}

export function compile(text: string): CompiledCondition {
  const tree = parseCondition(text);
  const root = lower(tree);
  return {
    text,
    tree,
    holds(scope) {
      try {
        return run(root, scope) === true;
      } catch (e) {
        if (e === MISMATCH) return false;
        throw e;
      }
    },
  };
}

/** Compiled conditions by text: many documents share few conditions, and a turn evaluates them again. */
const CACHE_SIZE = 4096;
const cache = new Map<string, CompiledCondition | Error>();

/** The compiled condition of this text (cached; bounded, least recently used out). Throws ConditionRefused. */
export function compiledCondition(text: string): CompiledCondition {
  let c = cache.get(text);
  if (c !== undefined) {
    cache.delete(text);
  } else {
    try {
      c = compile(text);
    } catch (e) {
      c = e as Error;
    }
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  cache.set(text, c);
  if (c instanceof Error) throw c;
  return c;
}

/** Whether the condition holds; a condition that no longer compiles (stored before a limit changed) does not. */
export function conditionHolds(text: string, scope: Scope): boolean {
  try {
    return compiledCondition(text).holds(scope);
  } catch {
    return false;
  }
}

/** One turn's evaluations: each distinct condition is evaluated once, however many documents share it. */
export class TurnConditions {
  private readonly seen = new Map<string, boolean>();
  /** `compiled`: where compiled conditions come from (the project's own cache, else the shared one) */
  constructor(
    readonly scope: Scope,
    private readonly compiled: (text: string) => CompiledCondition = compiledCondition,
  ) {}

  holds(text: string): boolean {
    let v = this.seen.get(text);
    if (v === undefined) {
      try {
        v = this.compiled(text).holds(this.scope);
      } catch {
        v = false; // a condition that no longer compiles does not hold
      }
      this.seen.set(text, v);
    }
    return v;
  }
}
