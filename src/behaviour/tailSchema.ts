import type { ParamInput } from "./behaviourModel.ts";
import type { ActionDef, Behaviour } from "./resolveBehaviour.ts";
import type { TailGate } from "../llm/types.ts";
import { DEFAULT_ACTION_GATE } from "./behaviourModel.ts";

/** Names a reference parameter may take, by kind (the project's minds, locations, items), resolved per turn. */
export type RefNames = Record<"mind" | "location" | "item", string[]>;

/** The action list's entry that means "no action" (a name no catalogue may use: validateBehaviour.ts). */
export const NO_ACTION = "none";

/**
 * The intensities the tail may name: 0 to 10, in tenths of the response's 0–1 (parseTail.ts divides). A grammar
 * cannot bound a free number, an enum it can; and a digit is one token where `0.6` is three.
 */
export const INTENSITIES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;
/** The tail's intensity → the response's (0–1). */
export const intensityOf = (tenths: number) => tenths / 10;
/** An integer parameter whose whole range has at most this many values is an enum in the grammar (bounded by it). */
const ENUM_INTEGER_SPAN = 64;
/**
 * The most tokens a tail may take: the bound computed from the schema, at most this (one or two short actions a
 * turn have their worst case within it). The budget is set aside in the context and reserved in credits on
 * every turn; a real model's tail with an action or two takes ~30–100 tokens.
 */
export const TAIL_TOKEN_CAP = 384;

type Json = Record<string, unknown>;

/**
 * The JSON schema of the tail — what the grammar allows and what Ajv checks afterwards — for this turn's
 * offered actions: `{"actions": [{"name", "params"} | {"name": "none"}], "emotion", "intensity", "trust"?}`. The
 * actions come first, right after the words that announce them (measured: bench/behaviourAccuracy.ts). Everything the grammar
 * can enforce is an enum or a const (emotion, intensity, trust step, action names, choices, references); a
 * wide integer keeps its minimum and maximum, which the grammar enforces digit by digit; an unbounded one is
 * only typed, and the server clamps it to safe integers (parseTail.ts). "none" is always a valid list.
 * Properties are listed in the order the model writes them, with `required` and closed objects for Ajv.
 */
export function tailSchema(b: Behaviour, offered: ActionDef[], refs: RefNames, way: ActionWay = "either"): Json {
  const properties: Json = {
    actions: actionsSchema(b, offered, refs, way),
    emotion: { type: "string", enum: b.emotions },
    intensity: { type: "integer", enum: [...INTENSITIES] },
  };
  if (b.trust) properties.trust = { type: "integer", enum: range(-b.trust.maxStep, b.trust.maxStep) };
  return closedObject(properties);
}

/** How many actions one tail may list: the mind's cap, and no more than the offered actions' own caps allow. */
export function maxActionsOf(b: Behaviour, offered: ActionDef[]): number {
  const room = offered.reduce((n, a) => n + Math.min(a.maxPerTurn, b.maxActionsPerTurn), 0);
  return Math.min(b.maxActionsPerTurn, room);
}

/**
 * The action list: `[{"name": "none"}]` alone, or one to maxItems of the offered actions. Measured on the labelled
 * set (bench/behaviourAccuracy.ts): with an empty list allowed, a small model closed the list at once on every
 * turn; choosing "none" by name, beside the actions' names, is a choice it makes like the others. Once it has
 * chosen "none" the list closes: a model let to go on wrote `[none, call_guard]` on small talk.
 */
function actionsSchema(b: Behaviour, offered: ActionDef[], refs: RefNames, way: ActionWay): Json {
  const none = closedObject({ name: { const: NO_ACTION } });
  const variants = offered.map((a) =>
    closedObject({
      name: { const: a.name },
      params: closedObject(Object.fromEntries(a.params.map(([name, p]) => [name, paramSchema(p, refs)]))),
    }),
  );
  const onlyNone = { type: "array", items: none, minItems: 1, maxItems: 1 };
  if (!variants.length || way === "none") return onlyNone;
  const acts = { type: "array", items: variants.length === 1 ? variants[0] : { oneOf: variants }, minItems: 1, maxItems: Math.max(1, maxActionsOf(b, offered)) };
  return way === "act" ? acts : { oneOf: [onlyNone, acts] };
}

/** Which action lists a tail schema allows: "none" or actions (the whole tail), or only one of the two (a gate's ways). */
export type ActionWay = "either" | "none" | "act";

/** The compact tail's text up to the first action's name: where it chooses between "none" and an action. */
export const ACTION_BRANCH_PREFIX = '{"actions":[{"name":"';

/**
 * The least probability the model must give the offered actions together, against "none", at the tail's first
 * name for the turn to act. Calibrated on the labelled set's tuning half with Qwen2.5-Coder-0.5B (bench/
 * behaviourAccuracy.ts, BENCHMARKS.md "Typed turns: acting only when asked"): lines that ask for an action mostly
 * read 0.9–1.0, small talk mostly below 0.6 but up to 0.9; from 0.8 to 0.9 no recall was lost and the last false
 * action went. A model this small is sure of what it is asked for; where it is unsure, doing nothing is the
 * cheaper mistake for a game.
 */
export const ACT_MIN_PROBABILITY = DEFAULT_ACTION_GATE;

/**
 * The gate on the tail's first choice (llm/types.ts TailGate): "none" or the offered actions, decided on the model's
 * probabilities at that name rather than sampled, and the tail then sampled under a schema that allows only the
 * way taken. Both schemas narrow `tailSchema`'s, so what Ajv accepts is unchanged. None when nothing is offered.
 * The threshold is the mind's own (`behaviour.actionGate`) when it sets one: an author who would rather an NPC
 * act on a hint than miss a request lowers it; one whose actions are costly raises it.
 */
export function tailGate(b: Behaviour, offered: ActionDef[], refs: RefNames, minProbability = b.actionGate ?? ACT_MIN_PROBABILITY): TailGate | undefined {
  if (!offered.length) return undefined;
  return {
    prefix: ACTION_BRANCH_PREFIX,
    stay: { choice: NO_ACTION, jsonSchema: tailSchema(b, offered, refs, "none") },
    act: { choices: offered.map((a) => a.name), jsonSchema: tailSchema(b, offered, refs, "act") },
    minProbability,
  };
}

function paramSchema(p: ParamInput, refs: RefNames): Json {
  if ("x-ref" in p) return { type: "string", enum: refs[p["x-ref"]] };
  if ("enum" in p) return { type: "string", enum: [...p.enum] };
  switch (p.type) {
    case "string":
      return { type: "string", maxLength: p.maxLength };
    case "boolean":
      return { type: "boolean" };
    case "integer":
      // A wider range keeps its bounds: the local grammar samples only numbers within them (llm/jsonSchemaGrammar.ts),
      // llama-server's json_schema does the same, and Ajv holds any other backend to them.
      return p.minimum !== undefined && p.maximum !== undefined && p.maximum - p.minimum < ENUM_INTEGER_SPAN
        ? { type: "integer", enum: range(p.minimum, p.maximum) }
        : { type: "integer", ...(p.minimum !== undefined ? { minimum: p.minimum } : {}), ...(p.maximum !== undefined ? { maximum: p.maximum } : {}) };
  }
}

/** An action can be offered only if every reference parameter has something to refer to. */
export function missingRefs(a: ActionDef, refs: RefNames): string | null {
  const empty = a.params.find(([, p]) => "x-ref" in p && refs[p["x-ref"]].length === 0);
  return empty ? `no ${(empty[1] as { "x-ref": string })["x-ref"]} to name for ${empty[0]}` : null;
}

function closedObject(properties: Json): Json {
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

function range(lo: number, hi: number): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

/**
 * An upper bound of the tail's tokens under this schema: its longest JSON text in bytes (no token is shorter
 * than a byte), with the grammar's whitespace and its closing newlines.
 */
export function tailLengthBound(schema: Json): number {
  return longest(schema, 1) + 8;
}

/**
 * The tail's token budget: the bound, at most TAIL_TOKEN_CAP. Under the cap the grammar alone guarantees a
 * complete tail; a catalogue whose worst case passes it (long text parameters, many actions a turn) may be
 * cut in that worst case, and the turn then takes the neutral default (parseTail.ts).
 */
export function tailTokenBound(schema: Json): number {
  return Math.min(TAIL_TOKEN_CAP, tailLengthBound(schema));
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

function longest(s: Json, depth: number): number {
  const pad = 1 + 4 * depth; // a newline and the indentation the grammar allows before an element
  if (Array.isArray(s.enum)) return Math.max(...s.enum.map(bytes));
  if ("const" in s) return bytes(s.const);
  if (Array.isArray(s.oneOf)) return Math.max(...(s.oneOf as Json[]).map((v) => longest(v, depth)));
  switch (s.type) {
    case "string":
      return 2 + 6 * Number(s.maxLength ?? 0); // `\uXXXX` is the longest form of one character
    case "integer":
      // bounded: its widest bound (the other side, when open, is llm/jsonSchemaGrammar's 15 digits and a sign)
      if (typeof s.minimum === "number" || typeof s.maximum === "number") return Math.max(bytes(s.minimum ?? -1e15 + 1), bytes(s.maximum ?? 1e15 - 1));
      return 36; // sign, 16 digits, exponent sign and 16 digits
    case "number":
      return 54;
    case "boolean":
      return 5;
    case "array":
      return 2 + pad + Number(s.maxItems ?? 0) * (longest((s.items as Json) ?? {}, depth + 1) + pad + 1);
    case "object": {
      const props = Object.entries((s.properties as Record<string, Json>) ?? {});
      return 2 + pad + props.reduce((n, [k, v]) => n + bytes(k) + 2 + longest(v, depth + 1) + pad + 1, 0);
    }
  }
  return 64;
}
