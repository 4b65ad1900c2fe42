import { validatorFor } from "../generation/structured.ts";
import type { ActionDef, Behaviour } from "./resolveBehaviour.ts";
import { intensityOf, NO_ACTION } from "./tailSchema.ts";

/** What the tail said, as the server settled it (before trust is applied to the stored value). */
export interface ParsedTail {
  emotion: { name: string; intensity: number };
  actions: { id: string; name: string; params: Record<string, unknown> }[];
  /** the trust step the model chose, within ±maxStep (0 without trust) */
  trustDelta: number;
  /** false: the tail was not usable (cut short, or no tail at all) and the turn takes the neutral default */
  valid: boolean;
  /** what the server changed or dropped, for logs and the preview */
  notes: string[];
}

interface RawAction {
  name: string;
  params: Record<string, unknown>;
}

/** The turn's behaviour when the tail is unusable: the first of neutral / the mind's first emotion, nothing done. */
export function neutralTail(b: Behaviour, why: string): ParsedTail {
  const name = b.emotions.includes("neutral") ? "neutral" : b.emotions[0];
  return { emotion: { name, intensity: 0 }, actions: [], trustDelta: 0, valid: false, notes: [why] };
}

/**
 * The tail's text → the turn's behaviour: parsed, its integers made integers within their bounds and its
 * texts held to their length (normaliseParams), validated against the turn's tail schema (Ajv), then held to
 * what the server enforces whatever the model wrote: at most maxPerTurn uses of an action and
 * maxActionsPerTurn in all, the trust step within ±maxStep. Each action gets an id unique in
 * the conversation (`a<turn>-<n>`), for the caller's actionResults.
 */
export function parseTail(text: string, schema: object, b: Behaviour, offered: ActionDef[], turn: number): ParsedTail {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return neutralTail(b, "the tail is not JSON (cut short?)");
  }
  const defs = new Map(offered.map((a) => [a.name, a]));
  const raw = value as { emotion: string; intensity: number; actions: RawAction[]; trust?: number };
  const notes: string[] = [];
  if (raw && Array.isArray(raw.actions)) for (const a of raw.actions) if (a && defs.has(a.name)) normaliseParams(a.params, defs.get(a.name)!, notes);
  const validate = validatorFor(schema);
  if (!validate(value)) {
    const e = validate.errors?.[0];
    return neutralTail(b, `the tail does not match its schema: ${e ? `${e.instancePath || "/"} ${e.message}` : "invalid"}`);
  }
  const uses = new Map<string, number>();
  const actions: ParsedTail["actions"] = [];
  // "none" says no action; beside a real one it says nothing
  for (const a of raw.actions.filter((x) => x.name !== NO_ACTION)) {
    const def = defs.get(a.name)!;
    const n = (uses.get(a.name) ?? 0) + 1;
    if (n > def.maxPerTurn || actions.length >= b.maxActionsPerTurn) {
      notes.push(`dropped a use of ${a.name}: over its limit per turn`);
      continue;
    }
    uses.set(a.name, n);
    actions.push({ id: `a${turn}-${actions.length + 1}`, name: a.name, params: orderedParams(a.params, def) });
  }
  const step = b.trust?.maxStep ?? 0;
  const trustDelta = Math.max(-step, Math.min(step, raw.trust ?? 0));
  return { emotion: { name: raw.emotion, intensity: intensityOf(raw.intensity) }, actions, trustDelta, valid: true, notes };
}

/**
 * What a backend's output may hold that the schema does not allow, made right before validation: an integer
 * written with an exponent (fractional or infinite once parsed) becomes the nearest integer, and any integer
 * is clamped to its bounds — the local grammar and llama-server's samples never leave them, but a backend
 * without constrained decoding may; a text longer than its maxLength is cut to it. The grammar counts a
 * character per code point it decodes, and llama.cpp's decoder accepts byte sequences (past U+10FFFF,
 * surrogates) that JavaScript decodes as one U+FFFD per byte: a sampled text can come out longer than the
 * grammar let it be.
 */
function normaliseParams(params: unknown, def: ActionDef, notes: string[]): void {
  if (!params || typeof params !== "object") return;
  const p = params as Record<string, unknown>;
  for (const [name, schema] of def.params) {
    const v = p[name];
    if (schema.type === "integer" && typeof v === "number") {
      const whole = Number.isFinite(v) ? Math.round(v) : Math.sign(v) * Number.MAX_SAFE_INTEGER;
      const clamped = Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, Math.max(schema.minimum ?? Number.MIN_SAFE_INTEGER, whole));
      if (clamped !== whole) notes.push(`${def.name}.${name}: ${v} clamped to ${clamped}`);
      p[name] = clamped;
    }
    if ("maxLength" in schema && typeof v === "string") p[name] = [...v].slice(0, schema.maxLength).join("");
  }
}

/** The action's parameters in its catalogue's order. */
function orderedParams(params: Record<string, unknown>, def: ActionDef): Record<string, unknown> {
  return Object.fromEntries(def.params.map(([name]) => [name, params[name]]));
}
