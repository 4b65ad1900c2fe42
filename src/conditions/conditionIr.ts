import type { StateValue } from "../state/stateKeys.ts";

/**
 * A condition after parsing: a small closed tree of the operations conditions support. The parser
 * (parseCondition.ts) builds it from the CEL syntax tree and refuses everything else; the evaluator
 * (compileCondition.ts) and the authoring type check (checkCondition.ts) both read it.
 */

export type Comparison = "==" | "!=" | "<" | "<=" | ">" | ">=";
export type Arithmetic = "+" | "-" | "*" | "/" | "%";

/** Where a state reference looks: the player's state, then the world's (`any`), or one scope only. */
export type RefScope = "any" | "world" | "player";

export type Node = { pos: number } & (
  | { k: "lit"; v: StateValue }
  | { k: "list"; items: StateValue[] }
  | { k: "ref"; scope: RefScope; key: string }
  | { k: "trust" }
  | { k: "turn" }
  | { k: "not"; a: Node }
  | { k: "neg"; a: Node }
  | { k: "and" | "or"; a: Node; b: Node }
  | { k: "cmp"; op: Comparison; a: Node; b: Node }
  | { k: "arith"; op: Arithmetic; a: Node; b: Node }
  | { k: "in"; a: Node; list: Node & { k: "list" } }
  | { k: "cond"; c: Node; a: Node; b: Node }
  | { k: "has"; ref: Node & { k: "ref" } }
);

/** How a reference is written back in a message: `quest.flood.stage`, `world.weather`. */
export function refText(n: Node & { k: "ref" }): string {
  return n.scope === "any" ? n.key : `${n.scope}.${n.key}`;
}
