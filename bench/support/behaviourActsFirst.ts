// The typed turn as it was after its first tuning (actions first, "none" a named choice; BENCHMARKS.md "Typed turns:
// accuracy, tuned on one half…"), before the tail was made compact and the block taught restraint: kept here,
// unchanged, so bench/behaviourAccuracy.ts can measure it beside the current one. Not used by the server.
import type { ParamInput } from "../../src/behaviour/behaviourModel.ts";
import type { ActionDef, Behaviour } from "../../src/behaviour/resolveBehaviour.ts";
import type { RefNames } from "../../src/behaviour/tailSchema.ts";

export const ACTS_FIRST_DELIMITER = "\n\n[Behaviour]\n";
const NO_ACTION = "none";
const INTENSITIES = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
const ENUM_INTEGER_SPAN = 64;
type Json = Record<string, unknown>;

export function tailSchemaActsFirst(b: Behaviour, offered: ActionDef[], refs: RefNames): Json {
  const properties: Json = {
    actions: actionsSchema(b, offered, refs),
    emotion: { type: "string", enum: b.emotions },
    intensity: { type: "number", enum: [...INTENSITIES] },
  };
  if (b.trust) properties.trust = { type: "integer", enum: range(-b.trust.maxStep, b.trust.maxStep) };
  return closedObject(properties);
}
function maxActionsOf(b: Behaviour, offered: ActionDef[]): number {
  const room = offered.reduce((n, a) => n + Math.min(a.maxPerTurn, b.maxActionsPerTurn), 0);
  return Math.min(b.maxActionsPerTurn, room);
}
function actionsSchema(b: Behaviour, offered: ActionDef[], refs: RefNames): Json {
  const maxItems = Math.max(1, maxActionsOf(b, offered));
  const variants = [
    closedObject({ name: { const: NO_ACTION } }),
    ...offered.map((a) =>
      closedObject({
        name: { const: a.name },
        params: closedObject(Object.fromEntries(a.params.map(([name, p]) => [name, paramSchema(p, refs)]))),
      }),
    ),
  ];
  return { type: "array", items: variants.length === 1 ? variants[0] : { oneOf: variants }, minItems: 1, maxItems };
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
function closedObject(properties: Json): Json {
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}
function range(lo: number, hi: number): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

export function behaviourBlockActsFirst(b: Behaviour): string {
  const marker = ACTS_FIRST_DELIMITER.trim();
  const lines = [
    `First answer the player in your own words, as always. After your words, the game adds a line "${marker}" and you write one JSON object on the next line: what you do, how you feel${b.trust ? " and how your trust in the player changes" : ""}.`,
  ];
  if (b.actions.length) {
    lines.push(`Actions: take one when the player's words call for it, at most ${b.maxActionsPerTurn} per turn; when nothing calls for one, write "${NO_ACTION}".`);
    for (const a of b.actions) lines.push(actionLine(a));
    lines.push(`- ${NO_ACTION}: do nothing.`);
  } else {
    lines.push(`You take no actions: the list is always [{"name":"${NO_ACTION}"}].`);
  }
  lines.push(`Emotions: ${b.emotions.join(", ")}; intensity from 0 to 1.`);
  if (b.trust) {
    lines.push(
      `Trust: how much you trust this player, from ${b.trust.min} to ${b.trust.max}. Each turn change it by at most ${b.trust.maxStep} either way: up when the player is kind or helpful, down when rude or threatening, 0 otherwise.`,
    );
  }
  const first = b.actions[0];
  if (first) lines.push(`For example, when the player asks for ${first.name}:`, `Very well.\n${marker}\n${exampleTail(b, [{ name: first.name, params: exampleParams(first) }], "happy")}`);
  lines.push(first ? "When nothing calls for an action:" : "For example:", `Is that so?\n${marker}\n${exampleTail(b, [], "neutral")}`);
  return lines.join("\n");
}
function actionLine(a: ActionDef): string {
  const params = a.params.map(([name, p]) => `${name} (${paramKind(p)}${p.description ? `: ${p.description.trim()}` : ""})`);
  return `- ${a.name}: ${a.description}${params.length ? ` Parameters: ${params.join("; ")}.` : ""}`;
}
function paramKind(p: ParamInput): string {
  if ("x-ref" in p) return `the name of ${p["x-ref"] === "item" ? "an" : "a"} ${p["x-ref"]}`;
  if ("enum" in p) return `one of ${p.enum.join(", ")}`;
  switch (p.type) {
    case "string":
      return `text, at most ${p.maxLength} characters`;
    case "boolean":
      return "true or false";
    case "integer":
      return p.minimum !== undefined && p.maximum !== undefined
        ? `a whole number from ${p.minimum} to ${p.maximum}`
        : p.minimum !== undefined
          ? `a whole number of at least ${p.minimum}`
          : p.maximum !== undefined
            ? `a whole number of at most ${p.maximum}`
            : "a whole number";
  }
}
function exampleParams(a: ActionDef): Record<string, unknown> {
  return Object.fromEntries(
    a.params.map(([name, p]) => {
      if ("x-ref" in p) return [name, `<${p["x-ref"]} name>`];
      if ("enum" in p) return [name, p.enum[0]];
      if (p.type === "integer") return [name, p.minimum ?? Math.min(1, p.maximum ?? 1)];
      if (p.type === "boolean") return [name, true];
      return [name, "…"];
    }),
  );
}
function exampleTail(b: Behaviour, actions: { name: string; params: Record<string, unknown> }[], feeling: string): string {
  const name = b.emotions.includes(feeling) ? feeling : b.emotions[0];
  return renderTail({ emotion: { name, intensity: 0.6 }, actions: actions.map((a, i) => ({ id: String(i), ...a })), ...(b.trust ? { trust: { value: 0, delta: 0, label: null } } : {}) });
}

function renderTail(t: { emotion: { name: string; intensity: number }; actions: { name: string; params: Record<string, unknown> }[]; trust?: { value: number; delta: number; label: string | null } }): string {
  const tail: Record<string, unknown> = {
    actions: t.actions.length ? t.actions.map((a) => ({ name: a.name, params: a.params })) : [{ name: NO_ACTION }],
    emotion: t.emotion.name,
    intensity: t.emotion.intensity,
  };
  if (t.trust) tail.trust = t.trust.delta;
  return JSON.stringify(tail);
}
