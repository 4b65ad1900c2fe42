// The typed turn's prompt block and tail schema as they were before they were tuned on the labelled set
// (bench/support/behaviourLabels.ts): kept here, unchanged, so bench/behaviourAccuracy.ts measures before and
// after side by side in one run. Not used by the server.
import type { ParamInput } from "../../src/behaviour/behaviourModel.ts";
import type { ActionDef, Behaviour } from "../../src/behaviour/resolveBehaviour.ts";
import type { RefNames } from "../../src/behaviour/tailSchema.ts";

export const BEFORE_DELIMITER = "\n\n[Behaviour]\n";
const INTENSITIES = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
type Json = Record<string, unknown>;

export function behaviourBlockBefore(b: Behaviour): string {
  const lines = [
    `After your words, the game adds a line "${BEFORE_DELIMITER.trim()}" and you write one JSON object on the next line: how you feel, what you do and${b.trust ? " how your trust in the player changes" : " nothing else"}.`,
    `Emotions: ${b.emotions.join(", ")}; intensity from 0 to 1.`,
  ];
  if (b.actions.length) {
    lines.push(`Actions you can take, at most ${b.maxActionsPerTurn} per turn, only when they fit what you said (taking none is always fine):`);
    for (const a of b.actions) lines.push(actionLine(a));
  } else {
    lines.push("You take no actions: the list is always empty.");
  }
  if (b.trust) {
    lines.push(
      `Trust: how much you trust this player, from ${b.trust.min} to ${b.trust.max}. Each turn change it by at most ${b.trust.maxStep} either way: up when the player is kind or helpful, down when rude or threatening, 0 otherwise.`,
    );
  }
  const first = b.actions[0];
  const emotion = b.emotions.includes("happy") ? "happy" : b.emotions[0];
  const tail: Json = { emotion, intensity: 0.6, actions: [] };
  if (b.trust) tail.trust = 1;
  lines.push("For example:", `Welcome, friend.${BEFORE_DELIMITER}${JSON.stringify(tail)}`);
  if (first) lines.push(`An action in the list looks like ${JSON.stringify({ name: first.name, params: exampleParams(first) })}.`);
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

/** The tail's schema before: emotion, intensity, then the action list (empty allowed); wide integers only typed. */
export function tailSchemaBefore(b: Behaviour, offered: ActionDef[], refs: RefNames): Json {
  const variants = offered.map((a) =>
    closed({ name: { const: a.name }, params: closed(Object.fromEntries(a.params.map(([name, p]) => [name, paramSchema(p, refs)]))) }),
  );
  const room = offered.reduce((n, a) => n + Math.min(a.maxPerTurn, b.maxActionsPerTurn), 0);
  const maxItems = Math.min(b.maxActionsPerTurn, room);
  const properties: Json = {
    emotion: { type: "string", enum: b.emotions },
    intensity: { type: "number", enum: INTENSITIES },
    actions: maxItems === 0 ? { type: "array", maxItems: 0 } : { type: "array", items: variants.length === 1 ? variants[0] : { oneOf: variants }, maxItems },
  };
  if (b.trust) properties.trust = { type: "integer", enum: range(-b.trust.maxStep, b.trust.maxStep) };
  return closed(properties);
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
      return p.minimum !== undefined && p.maximum !== undefined && p.maximum - p.minimum < 64 ? { type: "integer", enum: range(p.minimum, p.maximum) } : { type: "integer" };
  }
}

const closed = (properties: Json): Json => ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false });
const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
