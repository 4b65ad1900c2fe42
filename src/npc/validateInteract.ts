import { ApiError } from "../core/errors.ts";
import { isPlainObject } from "../lore/validate/fields.ts";
import { CONTEXT_ARRAY_FIELDS, CONTEXT_STRING_FIELDS, INTERACT_LIMITS as L, TOP_LEVEL_FIELDS } from "./interactLimits.ts";

export type SceneContext = Partial<Record<(typeof CONTEXT_STRING_FIELDS)[number], string>> &
  Partial<Record<(typeof CONTEXT_ARRAY_FIELDS)[number], string[]>>;

export interface HistoryMessage {
  role: "user" | "assistant";
  content: string;
}

export interface InteractRequest {
  text: string;
  entityMindId: string;
  playerId: string;
  context?: SceneContext;
  memory: { retrieve: boolean };
  activeKnowledgeTags?: string[];
  conversationHistory?: HistoryMessage[];
}

const bad = (error: string, extra: Record<string, unknown> = {}) => new ApiError(400, error, extra);

/**
 * Strict validation of the interact body, in the order of
 * precedence: object → unknown fields → text → entityMindId → playerId →
 * the remaining limits. Each failure is the spec's exact message, or one
 * that names the field and its limit.
 */
export function validateInteract(body: unknown): InteractRequest {
  if (!isPlainObject(body)) throw bad("Invalid request", { details: ["body: must be a JSON object"] });

  const unknown = Object.keys(body).filter((k) => !(TOP_LEVEL_FIELDS as readonly string[]).includes(k));
  if (isPlainObject(body.context)) {
    const known = [...CONTEXT_STRING_FIELDS, ...CONTEXT_ARRAY_FIELDS] as readonly string[];
    unknown.push(...Object.keys(body.context).filter((k) => !known.includes(k)).map((k) => `context.${k}`));
  }
  if (isPlainObject(body.memory)) unknown.push(...Object.keys(body.memory).filter((k) => k !== "retrieve").map((k) => `memory.${k}`));
  if (unknown.length) throw bad("Unknown field(s)", { fields: unknown, details: unknown.map((f) => `${f}: unknown field`) });

  const { text, entityMindId, playerId } = body;
  if (typeof text !== "string" || text.trim() === "") throw bad("Missing or empty text");
  if (text.length > L.textChars) throw bad("Text too long");
  if (entityMindId === undefined || entityMindId === null || entityMindId === "") throw bad("Missing entityMindId");
  if (typeof entityMindId !== "string") throw bad("Invalid entityMindId: must be a string");
  if (playerId === undefined || playerId === null || playerId === "") throw bad("Missing playerId");
  if (typeof playerId !== "string") throw bad("Invalid playerId: must be a string");
  if (playerId.length > L.playerIdChars) throw bad(`playerId too long (max ${L.playerIdChars} characters)`);

  const out: InteractRequest = { text, entityMindId, playerId, memory: { retrieve: false } };

  if (body.activeKnowledgeTags !== undefined) {
    const tags = body.activeKnowledgeTags;
    if (!Array.isArray(tags) || tags.some((x) => typeof x !== "string")) throw bad("Invalid activeKnowledgeTags: must be an array of strings");
    if (tags.length > L.activeTags) throw bad(`Too many activeKnowledgeTags (max ${L.activeTags})`);
    if (tags.some((x: string) => x.length > L.activeTagChars)) throw bad(`activeKnowledgeTags entry too long (max ${L.activeTagChars} characters)`);
    out.activeKnowledgeTags = tags as string[];
  }

  if (body.conversationHistory !== undefined) {
    const h = body.conversationHistory;
    if (!Array.isArray(h)) throw bad("Invalid conversationHistory: must be an array of {role, content}");
    if (h.length > L.historyMessages) throw bad(`conversationHistory too long (max ${L.historyMessages} messages)`);
    out.conversationHistory = h.map((m: unknown, i: number) => {
      if (!isPlainObject(m)) throw bad(`Invalid conversationHistory[${i}]: must be an object {role, content}`);
      const extra = Object.keys(m).filter((k) => k !== "role" && k !== "content");
      if (extra.length) throw bad("Unknown field(s)", { fields: extra.map((k) => `conversationHistory[${i}].${k}`) });
      if (m.role !== "user" && m.role !== "assistant") throw bad(`Invalid conversationHistory[${i}].role: must be 'user' or 'assistant'`);
      if (typeof m.content !== "string") throw bad(`Invalid conversationHistory[${i}].content: must be a string`);
      if (m.content.length > L.historyMessageChars) throw bad(`conversationHistory[${i}].content too long (max ${L.historyMessageChars} characters)`);
      return { role: m.role, content: m.content };
    });
  }

  if (body.context !== undefined) out.context = validateContext(body.context);

  if (body.memory !== undefined) {
    if (!isPlainObject(body.memory)) throw bad("Invalid memory: must be an object {retrieve?: boolean}");
    if (body.memory.retrieve !== undefined && typeof body.memory.retrieve !== "boolean") throw bad("Invalid memory.retrieve: must be a boolean");
    out.memory = { retrieve: body.memory.retrieve === true };
  }
  return out;
}

function validateContext(ctx: unknown): SceneContext {
  if (!isPlainObject(ctx)) throw bad("Invalid context: must be an object");
  const out: SceneContext = {};
  let total = 0;
  for (const f of CONTEXT_STRING_FIELDS) {
    const v = ctx[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw bad(`Invalid context.${f}: must be a string`);
    const max = f === "custom" ? L.contextCustomChars : L.contextStringChars;
    if (v.length > max) throw bad(`context.${f} too long (max ${max} characters)`);
    total += v.length;
    out[f] = v;
  }
  for (const f of CONTEXT_ARRAY_FIELDS) {
    const v = ctx[f];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw bad(`Invalid context.${f}: must be an array of strings`);
    if (v.length > L.contextArrayItems) throw bad(`context.${f} has too many items (max ${L.contextArrayItems})`);
    if (v.some((x: string) => x.length > L.contextArrayItemChars)) throw bad(`context.${f} item too long (max ${L.contextArrayItemChars} characters)`);
    total += (v as string[]).reduce((n, x) => n + x.length, 0);
    out[f] = v as string[];
  }
  // "the whole context block at 2,000 chars": the characters of every value in it.
  if (total > L.contextTotalChars) throw bad(`context too long (max ${L.contextTotalChars} characters overall)`);
  return out;
}
