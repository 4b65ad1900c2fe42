import type { StateType, StateValue } from "../state/stateKeys.ts";
import { refText, type Node } from "./conditionIr.ts";
import { ConditionRefused, type ConditionProblem } from "./parseCondition.ts";
import { compiledCondition } from "./compileCondition.ts";

/**
 * Authoring-time validation of a condition: it parses within the limits, uses only known functions,
 * and — against the project's declared state keys — never compares, negates or combines values of
 * incompatible types (`quest.flood.stage >= "two"` where the stage is a number), nor names a value
 * outside a declared key's enum. Undeclared keys may hold anything, so they are not type-checked.
 */

export interface KeyDeclaration {
  type: StateType;
  default?: StateValue;
  enum?: StateValue[];
}
export type Declarations = ReadonlyMap<string, KeyDeclaration>;

type Static = StateType | "any";

/** Every problem of a condition (empty when it is fine), each with its character offset. */
export function checkCondition(text: string, declared: Declarations): ConditionProblem[] {
  let tree: Node;
  try {
    tree = compiledCondition(text).tree;
  } catch (e) {
    if (e instanceof ConditionRefused) return e.problems;
    throw e;
  }
  const problems: ConditionProblem[] = [];
  const top = typeOf(tree, declared, problems);
  if (top !== "boolean" && top !== "any") problems.push({ at: tree.pos, reason: `a condition is true or false, this is a ${top}` });
  return problems;
}

/** Problems as "path: reason (at character N)" lines, the form every authoring 400 lists. */
export function conditionProblems(path: string, text: string, declared: Declarations): string[] {
  return checkCondition(text, declared).map((p) => `${path}: ${p.reason} (at character ${p.at + 1})`);
}

function describe(n: Node, declared: Declarations): string {
  if (n.k === "ref") return `${refText(n)} (${declared.get(n.key)?.type ?? "unset"})`;
  if (n.k === "lit") return JSON.stringify(n.v);
  if (n.k === "trust" || n.k === "turn") return n.k;
  return "the expression";
}

function typeOf(n: Node, declared: Declarations, problems: ConditionProblem[]): Static {
  const need = (m: Node, want: StateType, what: string): void => {
    const t = typeOf(m, declared, problems);
    if (t !== "any" && t !== want) problems.push({ at: m.pos, reason: `${what} needs ${want === "boolean" ? "true/false" : `a ${want}`}, ${describe(m, declared)} is a ${t}` });
  };
  switch (n.k) {
    case "lit":
      return typeof n.v as StateType;
    case "list":
      return "any";
    case "ref":
      return declared.get(n.key)?.type ?? "any";
    case "trust":
    case "turn":
      return "number";
    case "has":
      return "boolean";
    case "not":
      need(n.a, "boolean", "'!'");
      return "boolean";
    case "neg":
      need(n.a, "number", "'-'");
      return "number";
    case "and":
    case "or":
      need(n.a, "boolean", n.k === "and" ? "'&&'" : "'||'");
      need(n.b, "boolean", n.k === "and" ? "'&&'" : "'||'");
      return "boolean";
    case "arith":
      need(n.a, "number", `'${n.op}'`);
      need(n.b, "number", `'${n.op}'`);
      return "number";
    case "cond": {
      need(n.c, "boolean", "'? :'");
      const [a, b] = [typeOf(n.a, declared, problems), typeOf(n.b, declared, problems)];
      if (a !== "any" && b !== "any" && a !== b) problems.push({ at: n.pos, reason: `both branches of '? :' have one type (here ${a} and ${b})` });
      return a === "any" ? b : a;
    }
    case "cmp": {
      const [a, b] = [typeOf(n.a, declared, problems), typeOf(n.b, declared, problems)];
      if (a !== "any" && b !== "any" && a !== b) {
        problems.push({ at: n.pos, reason: `'${n.op}' compares ${describe(n.a, declared)} with ${describe(n.b, declared)}` });
      } else if (n.op !== "==" && n.op !== "!=" && (a === "boolean" || b === "boolean")) {
        problems.push({ at: n.pos, reason: `'${n.op}' orders numbers or text, not true/false` });
      }
      enumCheck(n.a, n.b, declared, problems);
      enumCheck(n.b, n.a, declared, problems);
      return "boolean";
    }
    case "in": {
      const a = typeOf(n.a, declared, problems);
      const item = n.list.items.length ? (typeof n.list.items[0] as StateType) : "any";
      if (a !== "any" && item !== "any" && a !== item) problems.push({ at: n.pos, reason: `'in' looks for ${describe(n.a, declared)} among ${item} values` });
      if (n.a.k === "ref") for (const v of n.list.items) enumValue(n.a, v, declared, problems);
      return "boolean";
    }
  }
}

/** `faction.watch == "frendly"` where faction.watch is declared with enum [friendly, hostile]: a typo caught at authoring. */
function enumCheck(ref: Node, other: Node, declared: Declarations, problems: ConditionProblem[]): void {
  if (ref.k === "ref" && other.k === "lit") enumValue(ref, other.v, declared, problems);
}

function enumValue(ref: Node & { k: "ref" }, v: StateValue, declared: Declarations, problems: ConditionProblem[]): void {
  const allowed = declared.get(ref.key)?.enum;
  if (allowed && typeof v === typeof allowed[0] && !allowed.includes(v)) {
    problems.push({ at: ref.pos, reason: `${refText(ref)} is one of ${allowed.map((x) => JSON.stringify(x)).join(", ")}; ${JSON.stringify(v)} is not` });
  }
}
