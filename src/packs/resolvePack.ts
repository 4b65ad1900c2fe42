import { newId } from "../core/ids.ts";
import { isPlainObject, type Problems } from "../lore/validate/fields.ts";
import { validateSettingsPatch } from "../projects/settings.ts";
import { KeySchema } from "./packSchema.ts";
import { relationshipIdentity, type DocumentRow, type LocationRow, type MindRow, type ProjectSnapshot, type RelationshipRow, type TagRow, type TypeRow } from "./projectSnapshot.ts";
import type { MindLine, Persona } from "../lore/minds/personaFields.ts";
import type { StateSchema } from "../state/stateSchema.ts";
import { checkPackConditions, resolveState } from "./resolveState.ts";
import type { KnowledgeEntry } from "../lore/minds/mindStore.ts";
import type { BehaviourInput } from "../behaviour/behaviourModel.ts";
import { checkBehaviourRules } from "../behaviour/validateBehaviour.ts";
import { planPackEvents, type EventPlan } from "../events/eventPack.ts";

/**
 * The second half of pack validation (the first is checkShape): duplicate
 * keys and every reference, resolved by key inside the pack or to the
 * project's existing rows. Also the plan of what to write: each entry's id
 * (the existing row's, or a new one) and its values in database terms.
 *
 * It reads the raw pack defensively — a field with the wrong shape has
 * already been reported and is simply skipped here — so one run reports
 * every problem of the pack.
 */
export interface Plan {
  settings: Record<string, unknown> | null;
  /** the project's state declarations, when the pack has a `state:` section */
  state: StateSchema | null;
  tags: TagPlan[];
  types: TypePlan[];
  locations: LocationPlan[];
  documents: DocumentPlan[];
  minds: MindPlan[];
  relationships: RelationshipPlan[];
  /** the world's history (src/events) */
  events: EventPlan[];
}

interface Item<R> {
  /** the entry's name in ImportResult.ids: its key (a tag's name; a key-less relationship's from->to:TYPE) */
  label: string;
  id: string;
  existing: R | null;
}
export interface TagPlan extends Item<TagRow> {
  name: string;
  color: string | null;
}
export interface TypePlan extends Item<TypeRow> {
  key: string;
  name: string;
  description: string | null;
  color: string;
  isSymmetric: boolean;
  inverseTypeId: string | null;
  conflictsWithBuiltIn: string[];
  conflictsWithCustom: string[];
}
export interface LocationPlan extends Item<LocationRow> {
  key: string;
  name: string;
  description: string | null;
  documentId: string | null;
}
export interface DocumentPlan extends Item<DocumentRow> {
  key: string;
  name: string;
  content: string;
  locationId: string | null;
  tagIds: string[];
  when: string | null;
  sticky: number | null;
  cooldown: number | null;
  delay: number | null;
  secret: boolean;
  reveal: string | null;
}
export interface MindPlan extends Item<MindRow>, Persona {
  key: string;
  locationId: string | null;
  knowledgeDescription: string | null;
  responseConfig: Record<string, unknown>;
  tagIds: string[];
  knowledge: KnowledgeEntry[];
  behaviour: BehaviourInput | null;
}
export interface RelationshipPlan extends Item<RelationshipRow> {
  key: string | null;
  fromId: string;
  toId: string;
  type: string | null;
  customTypeId: string | null;
  description: string | null;
}

type Entry = { index: number; v: Record<string, unknown> };

const KEY_PATTERN = new RegExp(KeySchema.pattern!);
const isKey = (v: unknown): v is string => typeof v === "string" && v.length <= KeySchema.maxLength! && KEY_PATTERN.test(v);
const text = (v: unknown): string => (typeof v === "string" ? v : "");
const nullableText = (v: unknown): string | null => (typeof v === "string" ? v : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** Hints or restrictions of a checked pack: plain lines and `{text, when}`, trimmed. */
const mindLines = (v: unknown): MindLine[] =>
  list(v).flatMap((l): MindLine[] =>
    typeof l === "string" ? [l.trim()] : isPlainObject(l) && typeof l.text === "string" && typeof l.when === "string" ? [{ text: l.text.trim(), when: l.when.trim() }] : [],
  );
const strings = (v: unknown): string[] => list(v).filter((s): s is string => typeof s === "string");
const timer = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) ? v : null);

function entries(pack: Record<string, unknown>, section: string): Entry[] {
  return list(pack[section]).flatMap((v, index) => (isPlainObject(v) ? [{ index, v }] : []));
}

/** Maps each entry's key (field `field`) to its first entry; later entries with the same key are problems. */
function uniqueBy(section: string, list: Entry[], field: string, p: Problems, what = "key"): Map<string, Entry> {
  const seen = new Map<string, Entry>();
  for (const e of list) {
    const k = e.v[field];
    if (!isKey(k)) continue;
    if (seen.has(k)) p.add(`${section}[${e.index}].${field}`, `duplicate ${what} '${k}'`);
    else seen.set(k, e);
  }
  return seen;
}

export function resolvePack(pack: Record<string, unknown>, snap: ProjectSnapshot, p: Problems, opts: { creatingProject: boolean }): Plan {
  if (opts.creatingProject && (pack.project === undefined || pack.project === null)) {
    p.add("project", "required when importing without a project id: project.name names the new project");
  }

  let settings: Record<string, unknown> | null = null;
  if (isPlainObject(pack.settings) && !p.list.some((x) => x.startsWith("settings"))) {
    // checkShape already applied settings.ts's rules; this keeps the two from drifting apart unnoticed.
    for (const problem of validateSettingsPatch(pack.settings)) p.add("settings", problem);
    settings = pack.settings;
  }

  const state = resolveState(pack, p);
  // Conditions are checked against the declarations this import leaves the project with.
  checkPackConditions(pack, state ?? snap.stateSchema, p);

  // 1. Every entry gets its id first, so references between entries can resolve in any order.
  const tagEntries = entries(pack, "tags");
  const typeEntries = entries(pack, "relationshipTypes");
  const locEntries = entries(pack, "locations");
  const docEntries = entries(pack, "documents");
  const mindEntries = entries(pack, "minds");
  const relEntries = entries(pack, "relationships");

  const packTags = uniqueBy("tags", tagEntries, "name", p, "tag");
  const packTypes = uniqueBy("relationshipTypes", typeEntries, "key", p);
  const packLocs = uniqueBy("locations", locEntries, "key", p);
  const packDocs = uniqueBy("documents", docEntries, "key", p);
  const packMinds = uniqueBy("minds", mindEntries, "key", p);
  const packRels = uniqueBy("relationships", relEntries, "key", p);

  const idMap = <R extends { id: string }>(keys: Map<string, Entry>, existing: Map<string, R>, prefix: string) => {
    const ids = new Map<string, string>();
    for (const k of keys.keys()) ids.set(k, existing.get(k)?.id ?? newId(prefix));
    for (const [k, r] of existing) if (!ids.has(k)) ids.set(k, r.id);
    return ids;
  };
  const tagIds = idMap(packTags, snap.tags, "tag");
  const typeIds = idMap(packTypes, snap.types.byKey, "rtype");
  const locIds = idMap(packLocs, snap.locations.byKey, "loc");
  const docIds = idMap(packDocs, snap.documents.byKey, "doc");
  const mindIds = idMap(packMinds, snap.minds.byKey, "mind");

  const ref = (ids: Map<string, string>, what: string) => (path: string, v: unknown): string | null => {
    if (v === undefined || v === null || !isKey(v)) return null; // absent, or already reported by checkShape
    const id = ids.get(v);
    if (id === undefined) p.add(path, `unknown ${what} '${v}'`);
    return id ?? null;
  };
  const tagRef = ref(tagIds, "tag");
  const typeRef = ref(typeIds, "relationship type");
  const locRef = ref(locIds, "location");
  const docRef = ref(docIds, "document");
  const mindRef = ref(mindIds, "mind");
  const tagList = (path: string, v: unknown): string[] => {
    const ids = list(v).flatMap((name, j) => {
      const id = tagRef(`${path}[${j}]`, name);
      return id ? [id] : [];
    });
    return [...new Set(ids)].sort();
  };

  // 2. Each section, first entry of each key only (duplicates are already problems).
  const tags: TagPlan[] = [...packTags].map(([name, { v }]) => ({
    label: name,
    id: tagIds.get(name)!,
    existing: snap.tags.get(name) ?? null,
    name,
    color: typeof v.color === "string" ? v.color.toLowerCase() : null,
  }));

  const types: TypePlan[] = [...packTypes].map(([key, { index, v }]) => {
    const path = `relationshipTypes[${index}]`;
    return {
      label: key,
      id: typeIds.get(key)!,
      existing: snap.types.byKey.get(key) ?? null,
      key,
      name: text(v.name).trim(),
      description: nullableText(v.description),
      color: text(v.color).toLowerCase(),
      isSymmetric: v.isSymmetric === true,
      inverseTypeId: typeRef(`${path}.inverse`, v.inverse),
      conflictsWithBuiltIn: [...new Set(strings(v.conflictsWithBuiltIn))],
      conflictsWithCustom: [...new Set(list(v.conflictsWithCustom).flatMap((k, j) => typeRef(`${path}.conflictsWithCustom[${j}]`, k) ?? []))],
    };
  });
  checkTypeNames(types, packTypes, snap, p);

  const locations: LocationPlan[] = [...packLocs].map(([key, { index, v }]) => ({
    label: key,
    id: locIds.get(key)!,
    existing: snap.locations.byKey.get(key) ?? null,
    key,
    name: text(v.name).trim(),
    description: nullableText(v.description),
    documentId: docRef(`locations[${index}].document`, v.document),
  }));

  const documents: DocumentPlan[] = [...packDocs].map(([key, { index, v }]) => ({
    label: key,
    id: docIds.get(key)!,
    existing: snap.documents.byKey.get(key) ?? null,
    key,
    name: text(v.name).trim(),
    content: text(v.content),
    tagIds: tagList(`documents[${index}].tags`, v.tags),
    locationId: locRef(`documents[${index}].location`, v.location),
    when: typeof v.when === "string" ? v.when : null,
    sticky: timer(v.sticky),
    cooldown: timer(v.cooldown),
    delay: timer(v.delay),
    secret: v.secret === true,
    reveal: v.secret === true && typeof v.reveal === "string" && v.reveal.trim() ? v.reveal : null,
  }));

  const minds: MindPlan[] = [...packMinds].map(([key, { index, v }]) => ({
    label: key,
    id: mindIds.get(key)!,
    existing: snap.minds.byKey.get(key) ?? null,
    key,
    entityName: text(v.entityName).trim(),
    personality: text(v.personality).trim(),
    backstory: nullableText(v.backstory),
    backstorySummary: nullableText(v.backstorySummary),
    role: nullableText(v.role),
    speakingStyle: nullableText(v.speakingStyle),
    hints: mindLines(v.hints),
    restrictions: mindLines(v.restrictions),
    locationId: locRef(`minds[${index}].location`, v.location),
    knowledgeDescription: nullableText(v.knowledgeDescription),
    responseConfig: responseConfig(v.responseConfig),
    tagIds: tagList(`minds[${index}].knowledgeTags`, v.knowledgeTags),
    knowledge: list(v.knowledge).flatMap((e, j) => {
      if (!isPlainObject(e) || typeof e.when !== "string") return [];
      const tagId = tagRef(`minds[${index}].knowledge[${j}].tag`, e.tag);
      return tagId ? [{ tagId, when: e.when }] : [];
    }),
    behaviour: behaviourOf(v.behaviour, `minds[${index}].behaviour`, p),
  }));

  const relationships = resolveRelationships(relEntries, packRels, snap, mindRef, typeRef, p);

  const events = planPackEvents(pack.events, mindRef, locRef, p);
  return { settings, state, tags, types, locations, documents, minds, relationships, events };
}

/** A mind's behaviour once its shape held (checkShape reported otherwise): the rules a schema cannot say. */
function behaviourOf(v: unknown, path: string, p: Problems): BehaviourInput | null {
  if (!isPlainObject(v) || p.list.some((x) => x.startsWith(path))) return null;
  checkBehaviourRules(v as BehaviourInput, path, (at, reason) => p.add(at, reason));
  return v as BehaviourInput;
}

/** Stored form of responseConfig: only the fields given, in a fixed order (so equal configs compare equal). */
function responseConfig(v: unknown): Record<string, unknown> {
  if (!isPlainObject(v)) return {};
  const out: Record<string, unknown> = {};
  for (const k of ["verbosity", "maxTokens", "temperature", "maxSentences"]) if (v[k] !== undefined && v[k] !== null) out[k] = v[k];
  return out;
}

/** Custom type names are unique per project: among the pack's types and the project's other types. */
function checkTypeNames(types: TypePlan[], packTypes: Map<string, Entry>, snap: ProjectSnapshot, p: Problems): void {
  const owner = new Map<string, { id: string; key: string }>();
  const planned = new Set(types.map((t) => t.id));
  for (const [key, r] of snap.types.byKey) if (!planned.has(r.id)) owner.set(r.name, { id: r.id, key });
  for (const t of types) {
    if (!t.name) continue;
    const other = owner.get(t.name);
    if (other && other.id !== t.id) p.add(`relationshipTypes[${packTypes.get(t.key)!.index}].name`, `'${t.name}' is already the name of relationship type '${other.key}'`);
    else owner.set(t.name, { id: t.id, key: t.key });
  }
}

function resolveRelationships(
  relEntries: Entry[],
  packRels: Map<string, Entry>,
  snap: ProjectSnapshot,
  mindRef: (path: string, v: unknown) => string | null,
  typeRef: (path: string, v: unknown) => string | null,
  p: Problems,
): RelationshipPlan[] {
  // Key-less relationships are identified by (from, to, type): they match the project's key-less ones so.
  const seen = new Set<string>();
  const out: RelationshipPlan[] = [];
  for (const { index, v } of relEntries) {
    const path = `relationships[${index}]`;
    const key = isKey(v.key) ? v.key : null;
    if (key !== null && packRels.get(key)?.index !== index) continue; // a duplicate key, already reported
    if (v.key !== undefined && v.key !== null && key === null) continue; // a malformed key, already reported
    const fromId = mindRef(`${path}.from`, v.from);
    const toId = mindRef(`${path}.to`, v.to);
    if (isKey(v.from) && v.from === v.to) p.add(`${path}.to`, "a relationship joins two different minds");
    const hasType = v.type !== undefined && v.type !== null;
    const hasCustom = v.customType !== undefined && v.customType !== null;
    if (hasType && hasCustom) p.add(path, "give either type (a built-in type) or customType (a custom type's key), not both");
    if (!hasType && !hasCustom) p.add(path, "give type (a built-in type) or customType (a custom type's key)");
    const customTypeId = hasCustom ? typeRef(`${path}.customType`, v.customType) : null;
    const type = hasType && typeof v.type === "string" ? v.type : null;
    if (!fromId || !toId || (!type && !customTypeId) || (hasType && hasCustom)) continue;
    const label = key ?? `${v.from}->${v.to}:${type ?? v.customType}`;
    let existing: RelationshipRow | null;
    if (key !== null) existing = snap.relationshipKeys.byKey.get(key) ?? null;
    else {
      if (seen.has(label)) {
        p.add(path, `duplicate relationship '${label}' (give the relationships keys to have several of one kind)`);
        continue;
      }
      seen.add(label);
      existing = snap.keylessRelationships.get(relationshipIdentity(fromId, toId, type, customTypeId)) ?? null;
    }
    out.push({ label, id: existing?.id ?? newId("rel"), existing, key, fromId, toId, type, customTypeId, description: nullableText(v.description) });
  }
  return out;
}
