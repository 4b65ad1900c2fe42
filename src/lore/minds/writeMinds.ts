import { notFound } from "../../core/errors.ts";
import type { Persona } from "./personaFields.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { sameMembers } from "../../core/sameMembers.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { resolveTagNames } from "../tags/writeTags.ts";
import { isPlainObject, LIMITS, Problems } from "../validate/fields.ts";
import { MAX_SENTENCES_LIMIT, VERBOSITY_TOKENS, type StoredResponseConfig } from "./responseConfig.ts";
import { deleteMindRow, insertMindRow, mindRecord, setMindKnowledge, setMindTags, updateMindRow, type KnowledgeEntry } from "./mindStore.ts";
import { checkKnowledge } from "./mindKnowledge.ts";
import { checkMindLines } from "./mindLines.ts";
import type { Declarations } from "../../conditions/checkCondition.ts";
import { declarationsOf } from "../../state/stateSchema.ts";
import { readStateSchema } from "../../state/stateService.ts";
import { locationExists } from "../locations/locationStore.ts";
import type { BehaviourInput } from "../../behaviour/behaviourModel.ts";
import { validateBehaviour } from "../../behaviour/validateBehaviour.ts";
import { saveMindBehaviour } from "../../behaviour/mindBehaviour.ts";

export interface MindInput {
  key?: unknown;
  entityName?: unknown;
  personality?: unknown;
  backstory?: unknown;
  backstorySummary?: unknown;
  role?: unknown;
  speakingStyle?: unknown;
  hints?: unknown;
  restrictions?: unknown;
  locationId?: unknown;
  knowledgeTags?: unknown;
  knowledge?: unknown;
  knowledgeDescription?: unknown;
  responseConfig?: unknown;
  behaviour?: unknown;
}

export const MIND_FIELDS = [
  "key", "entityName", "personality", "backstory", "backstorySummary", "role", "speakingStyle", "hints",
  "restrictions", "locationId", "knowledgeTags", "knowledge", "knowledgeDescription", "responseConfig", "behaviour",
] as const;

/** Validates responseConfig (DESIGN.md): verbosity, maxTokens, temperature, maxSentences. */
export function checkResponseConfig(p: Problems, path: string, v: unknown): StoredResponseConfig | undefined {
  if (v === undefined || v === null) return v === null ? {} : undefined;
  if (!isPlainObject(v)) {
    p.add(path, "must be an object {verbosity, maxTokens, temperature, maxSentences}");
    return undefined;
  }
  p.unknownKeys(path, v, ["verbosity", "maxTokens", "temperature", "maxSentences"]);
  const out: StoredResponseConfig = {};
  if (v.verbosity !== undefined) {
    if (typeof v.verbosity !== "string" || !(v.verbosity in VERBOSITY_TOKENS)) p.add(`${path}.verbosity`, "must be terse, balanced or verbose");
    else out.verbosity = v.verbosity as StoredResponseConfig["verbosity"];
  }
  if (v.maxTokens !== undefined && v.maxTokens !== null) {
    if (typeof v.maxTokens !== "number" || !Number.isInteger(v.maxTokens) || v.maxTokens < 1 || v.maxTokens > 2048) p.add(`${path}.maxTokens`, "must be an integer from 1 to 2048");
    else out.maxTokens = v.maxTokens;
  }
  if (v.temperature !== undefined && v.temperature !== null) {
    if (typeof v.temperature !== "number" || v.temperature < 0 || v.temperature > 2) p.add(`${path}.temperature`, "must be a number from 0 to 2");
    else out.temperature = v.temperature;
  }
  if (v.maxSentences !== undefined && v.maxSentences !== null) {
    const n = v.maxSentences;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_SENTENCES_LIMIT) p.add(`${path}.maxSentences`, `must be an integer from 1 to ${MAX_SENTENCES_LIMIT}`);
    else out.maxSentences = n;
  }
  return out;
}

/** A mind's values in database terms (lists and responseConfig parsed). */
export interface MindValues extends Persona {
  key: string | null;
  locationId: string | null;
  tagIds: string[];
  /** conditional knowledge: tags that open only while their condition holds (absent: none) */
  knowledge?: KnowledgeEntry[];
  knowledgeDescription: string | null;
  responseConfig: StoredResponseConfig;
}

/** A mind's values, and its behaviour when the input sets it (undefined: left as it is; null: removed). */
type Normalised = MindValues & { behaviour?: BehaviourInput | null };

function normalise(ctx: ServiceContext, projectId: string, input: MindInput, base?: MindValues): Normalised {
  const p = new Problems();
  p.unknownKeys("", input as Record<string, unknown>, MIND_FIELDS);
  let decl: Declarations | undefined;
  const declared = () => (decl ??= declarationsOf(readStateSchema(ctx, projectId)));
  const pick = <T>(field: keyof MindInput, read: () => T, fallback: T): T => (input[field] === undefined && base ? fallback : read());
  const n: Normalised = {
    key: pick("key", () => p.optionalString("key", input.key, LIMITS.key) ?? null, base?.key ?? null),
    entityName: pick("entityName", () => p.requiredString("entityName", input.entityName, LIMITS.name) ?? "", base?.entityName ?? ""),
    personality: pick("personality", () => p.requiredString("personality", input.personality, LIMITS.text) ?? "", base?.personality ?? ""),
    backstory: pick("backstory", () => p.optionalString("backstory", input.backstory, LIMITS.longText) ?? null, base?.backstory ?? null),
    backstorySummary: pick("backstorySummary", () => p.optionalString("backstorySummary", input.backstorySummary, LIMITS.text) ?? null, base?.backstorySummary ?? null),
    role: pick("role", () => p.optionalString("role", input.role, LIMITS.name) ?? null, base?.role ?? null),
    speakingStyle: pick("speakingStyle", () => p.optionalString("speakingStyle", input.speakingStyle, LIMITS.text) ?? null, base?.speakingStyle ?? null),
    hints: pick("hints", () => checkMindLines(p, "hints", input.hints, declared()) ?? [], base?.hints ?? []),
    restrictions: pick("restrictions", () => checkMindLines(p, "restrictions", input.restrictions, declared()) ?? [], base?.restrictions ?? []),
    locationId: base?.locationId ?? null,
    tagIds: base?.tagIds ?? [],
    knowledgeDescription: pick("knowledgeDescription", () => p.optionalString("knowledgeDescription", input.knowledgeDescription, LIMITS.text) ?? null, base?.knowledgeDescription ?? null),
    responseConfig: pick("responseConfig", () => checkResponseConfig(p, "responseConfig", input.responseConfig) ?? {}, base?.responseConfig ?? {}),
  };
  if (input.locationId !== undefined) {
    if (input.locationId === null) n.locationId = null;
    else if (typeof input.locationId !== "string" || !locationExists(ctx.db, projectId, input.locationId)) {
      p.add("locationId", "no such location in this project");
    } else n.locationId = input.locationId;
  }
  if (input.knowledgeTags !== undefined) {
    const names = p.stringList("knowledgeTags", input.knowledgeTags, 200, LIMITS.tagName) ?? [];
    const { ids, missing } = resolveTagNames(ctx, projectId, names);
    for (const m of missing) p.add(`knowledgeTags[${names.indexOf(m)}]`, `unknown tag '${m}'`);
    n.tagIds = ids;
  }
  n.knowledge = input.knowledge !== undefined ? checkKnowledge(ctx, projectId, input.knowledge, p) : (base?.knowledge ?? []);
  if (input.behaviour !== undefined) {
    n.behaviour = validateBehaviour(input.behaviour, "behaviour", (path, reason) => p.add(path, reason), declared());
  }
  p.throwIfAny();
  return n;
}

const columns = (n: MindValues) => [
  n.key, n.entityName, n.personality, n.backstory, n.backstorySummary, n.role, n.speakingStyle,
  JSON.stringify(n.hints), JSON.stringify(n.restrictions), n.locationId, n.knowledgeDescription, JSON.stringify(n.responseConfig),
];

/**
 * Writes a mind's values, the caller holding the write transaction; the one place both the lore
 * API and lore packs write minds. Without `before` it is inserted; otherwise only a change is
 * written (an unchanged mind keeps its updated_at). Returns whether it wrote.
 */
export function saveMind(ctx: ServiceContext, projectId: string, id: string, n: MindValues, before: MindValues | null): boolean {
  const now = nowIso(ctx);
  const cols = columns(n);
  const tagsChanged = !before || !sameMembers(n.tagIds, before.tagIds);
  const knowledgeChanged = JSON.stringify(n.knowledge ?? []) !== JSON.stringify(before?.knowledge ?? []);
  if (!before) {
    insertMindRow(ctx.db, projectId, id, cols, now);
  } else {
    const old = columns(before);
    if (!tagsChanged && !knowledgeChanged && cols.every((c, i) => c === old[i])) return false;
    updateMindRow(ctx.db, id, cols, now);
  }
  if (tagsChanged) setMindTags(ctx.db, id, n.tagIds);
  if (knowledgeChanged) setMindKnowledge(ctx.db, id, n.knowledge ?? []);
  return true;
}

export function createMind(ctx: ServiceContext, projectId: string, input: MindInput): { id: string } {
  const n = normalise(ctx, projectId, input);
  const id = newId("mind");
  writeTx(ctx.db, () => {
    saveMind(ctx, projectId, id, n, null);
    if (n.behaviour) saveMindBehaviour(ctx, projectId, id, n.behaviour);
  });
  return { id };
}

export function updateMind(ctx: ServiceContext, projectId: string, id: string, input: MindInput): { id: string } {
  const base = loadMindValues(ctx, projectId, id);
  const n = normalise(ctx, projectId, input, base);
  writeTx(ctx.db, () => {
    saveMind(ctx, projectId, id, n, base);
    if (n.behaviour !== undefined) saveMindBehaviour(ctx, projectId, id, n.behaviour);
  });
  return { id };
}

export function deleteMind(ctx: ServiceContext, projectId: string, id: string): void {
  if (!deleteMindRow(ctx.db, projectId, id)) throw notFound("Entity Mind");
}

function loadMindValues(ctx: ServiceContext, projectId: string, id: string): MindValues {
  const rec = mindRecord(ctx.db, projectId, id);
  if (!rec) throw notFound("Entity Mind");
  const { row: r, tagIds, knowledge } = rec;
  return {
    key: r.key,
    entityName: r.entity_name!,
    personality: r.personality!,
    backstory: r.backstory,
    backstorySummary: r.backstory_summary,
    role: r.role,
    speakingStyle: r.speaking_style,
    hints: JSON.parse(r.hints ?? "[]"),
    restrictions: JSON.parse(r.restrictions ?? "[]"),
    locationId: r.location_id,
    tagIds,
    knowledge,
    knowledgeDescription: r.knowledge_description,
    responseConfig: JSON.parse(r.response_config ?? "{}"),
  };
}
