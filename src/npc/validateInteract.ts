import { ApiError } from "../core/errors.ts";
import { isPlainObject } from "../lore/validate/fields.ts";
import { CONTEXT_ARRAY_FIELDS, CONTEXT_STRING_FIELDS, INTERACT_LIMITS as L, TOP_LEVEL_FIELDS } from "./interactLimits.ts";
import type { HistoryMessage, InteractRequest, SceneContext } from "./interactModel.ts";
import { keyProblem, valueProblem, type StateValue } from "../state/stateKeys.ts";

export type { HistoryMessage, InteractRequest, SceneContext };

type Body = Record<string, unknown>;
const bad = (error: string, extra: Record<string, unknown> = {}) => new ApiError(400, error, extra);

/**
 * The spec's order of precedence for the interact body (the rule:
 * object → unknown fields → text → entityMindId → playerId → the remaining
 * limits): the first rule that fails gives the one error answered. Each
 * message is the spec's exact one, or one that names the field and its limit.
 * The limits are InteractBody's (interactModel.ts), both built from INTERACT_LIMITS.
 */
export const INTERACT_PRECEDENCE: readonly { rule: string; check: (b: Body) => ApiError | undefined }[] = [
  { rule: "unknown fields", check: unknownFields },
  { rule: "text", check: (b) => (typeof b.text !== "string" || b.text.trim() === "" ? bad("Missing or empty text") : undefined) },
  { rule: "text length", check: (b) => ((b.text as string).length > L.textChars ? bad("Text too long") : undefined) },
  { rule: "entityMindId", check: (b) => (b.entityMindId === undefined || b.entityMindId === null || b.entityMindId === "" ? bad("Missing entityMindId") : undefined) },
  { rule: "entityMindId type", check: (b) => (typeof b.entityMindId !== "string" ? bad("Invalid entityMindId: must be a string") : undefined) },
  { rule: "playerId", check: (b) => (b.playerId === undefined || b.playerId === null || b.playerId === "" ? bad("Missing playerId") : undefined) },
  { rule: "playerId type", check: (b) => (typeof b.playerId !== "string" ? bad("Invalid playerId: must be a string") : undefined) },
  {
    rule: "playerId length",
    check: (b) => ((b.playerId as string).length > L.playerIdChars ? bad(`playerId too long (max ${L.playerIdChars} characters)`) : undefined),
  },
  { rule: "activeKnowledgeTags", check: (b) => (b.activeKnowledgeTags === undefined ? undefined : activeTagsError(b.activeKnowledgeTags)) },
  { rule: "conversationHistory", check: (b) => (b.conversationHistory === undefined ? undefined : historyError(b.conversationHistory)) },
  { rule: "context", check: (b) => (b.context === undefined ? undefined : contextError(b.context)) },
  { rule: "memory", check: (b) => (b.memory === undefined ? undefined : memoryError(b.memory)) },
  { rule: "state", check: (b) => (b.state === undefined ? undefined : stateError(b.state)) },
];

/** Strict validation of the interact body: the first failing rule of INTERACT_PRECEDENCE is thrown. */
export function validateInteract(body: unknown): InteractRequest {
  if (!isPlainObject(body)) throw bad("Invalid request", { details: ["body: must be a JSON object"] });
  for (const { check } of INTERACT_PRECEDENCE) {
    const e = check(body);
    if (e) throw e;
  }
  const out: InteractRequest = {
    text: body.text as string,
    entityMindId: body.entityMindId as string,
    playerId: body.playerId as string,
    memory: { retrieve: isPlainObject(body.memory) && body.memory.retrieve === true },
  };
  if (body.activeKnowledgeTags !== undefined) out.activeKnowledgeTags = body.activeKnowledgeTags as string[];
  if (body.conversationHistory !== undefined) {
    out.conversationHistory = (body.conversationHistory as HistoryMessage[]).map((m) => ({ role: m.role, content: m.content }));
  }
  if (body.context !== undefined) out.context = sceneContext(body.context as Body);
  // A null-prototype copy: keys are data here, never properties looked up through a prototype.
  if (body.state !== undefined) out.state = Object.assign(Object.create(null), body.state) as Record<string, StateValue>;
  return out;
}

function unknownFields(b: Body): ApiError | undefined {
  const unknown = Object.keys(b).filter((k) => !(TOP_LEVEL_FIELDS as readonly string[]).includes(k));
  if (isPlainObject(b.context)) {
    const known = [...CONTEXT_STRING_FIELDS, ...CONTEXT_ARRAY_FIELDS] as readonly string[];
    unknown.push(...Object.keys(b.context).filter((k) => !known.includes(k)).map((k) => `context.${k}`));
  }
  if (isPlainObject(b.memory)) unknown.push(...Object.keys(b.memory).filter((k) => k !== "retrieve").map((k) => `memory.${k}`));
  return unknown.length ? bad("Unknown field(s)", { fields: unknown, details: unknown.map((f) => `${f}: unknown field`) }) : undefined;
}

function activeTagsError(tags: unknown): ApiError | undefined {
  if (!Array.isArray(tags) || tags.some((x) => typeof x !== "string")) return bad("Invalid activeKnowledgeTags: must be an array of strings");
  if (tags.length > L.activeTags) return bad(`Too many activeKnowledgeTags (max ${L.activeTags})`);
  if (tags.some((x: string) => x.length > L.activeTagChars)) return bad(`activeKnowledgeTags entry too long (max ${L.activeTagChars} characters)`);
}

function historyError(h: unknown): ApiError | undefined {
  if (!Array.isArray(h)) return bad("Invalid conversationHistory: must be an array of {role, content}");
  if (h.length > L.historyMessages) return bad(`conversationHistory too long (max ${L.historyMessages} messages)`);
  for (const [i, m] of h.entries()) {
    if (!isPlainObject(m)) return bad(`Invalid conversationHistory[${i}]: must be an object {role, content}`);
    const extra = Object.keys(m).filter((k) => k !== "role" && k !== "content");
    if (extra.length) return bad("Unknown field(s)", { fields: extra.map((k) => `conversationHistory[${i}].${k}`) });
    if (m.role !== "user" && m.role !== "assistant") return bad(`Invalid conversationHistory[${i}].role: must be 'user' or 'assistant'`);
    if (typeof m.content !== "string") return bad(`Invalid conversationHistory[${i}].content: must be a string`);
    if (m.content.length > L.historyMessageChars) return bad(`conversationHistory[${i}].content too long (max ${L.historyMessageChars} characters)`);
  }
}

function contextError(ctx: unknown): ApiError | undefined {
  if (!isPlainObject(ctx)) return bad("Invalid context: must be an object");
  let total = 0;
  for (const f of CONTEXT_STRING_FIELDS) {
    const v = ctx[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") return bad(`Invalid context.${f}: must be a string`);
    const max = f === "custom" ? L.contextCustomChars : L.contextStringChars;
    if (v.length > max) return bad(`context.${f} too long (max ${max} characters)`);
    total += v.length;
  }
  for (const f of CONTEXT_ARRAY_FIELDS) {
    const v = ctx[f];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) return bad(`Invalid context.${f}: must be an array of strings`);
    if (v.length > L.contextArrayItems) return bad(`context.${f} has too many items (max ${L.contextArrayItems})`);
    if (v.some((x: string) => x.length > L.contextArrayItemChars)) return bad(`context.${f} item too long (max ${L.contextArrayItemChars} characters)`);
    total += (v as string[]).reduce((n, x) => n + x.length, 0);
  }
  // "the whole context block at 2,000 chars": the characters of every value in it.
  if (total > L.contextTotalChars) return bad(`context too long (max ${L.contextTotalChars} characters overall)`);
}

function memoryError(m: unknown): ApiError | undefined {
  if (!isPlainObject(m)) return bad("Invalid memory: must be an object {retrieve?: boolean}");
  if (m.retrieve !== undefined && typeof m.retrieve !== "boolean") return bad("Invalid memory.retrieve: must be a boolean");
}

/** Per-request state: {key: value}, keys in the state key syntax, values true/false, finite numbers or short strings. */
function stateError(st: unknown): ApiError | undefined {
  if (!isPlainObject(st)) return bad("Invalid state: must be an object of state keys and values");
  const entries = Object.entries(st);
  if (entries.length > L.stateKeys) return bad(`Too many state keys (max ${L.stateKeys})`);
  for (const [k, v] of entries) {
    const kp = keyProblem(k);
    if (kp) return bad(`Invalid state key '${k.slice(0, 120)}': ${kp}`);
    const vp = valueProblem(v);
    if (vp) return bad(`Invalid state.${k}: ${vp}`);
  }
}

/** The context's values, nulls dropped (validated already). */
function sceneContext(ctx: Body): SceneContext {
  const out: SceneContext = {};
  for (const f of CONTEXT_STRING_FIELDS) if (typeof ctx[f] === "string") out[f] = ctx[f] as string;
  for (const f of CONTEXT_ARRAY_FIELDS) if (Array.isArray(ctx[f])) out[f] = ctx[f] as string[];
  return out;
}
