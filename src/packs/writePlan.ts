import type { MindLine } from "../lore/minds/personaFields.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { deferForeignKeys } from "../db/openDatabase.ts";
import { readSettings, updateSettings } from "../projects/settings.ts";
import { parseJsonColumn } from "../core/json.ts";
import { saveDocument } from "../lore/documents/writeDocuments.ts";
import type { StoredResponseConfig } from "../lore/minds/responseConfig.ts";
import { saveMind, type MindValues } from "../lore/minds/writeMinds.ts";
import { saveMindBehaviour } from "../behaviour/mindBehaviour.ts";
import type { MindRow } from "./projectSnapshot.ts";
import type { Plan } from "./resolvePack.ts";
import { insertTag, setTagColor } from "../lore/tags/tagStore.ts";
import { insertType, parkTypeName, updateTypeRow, insertRelationship, updateRelationshipRow } from "../lore/relationships/relationshipStore.ts";
import { insertLocation, updateLocationRow } from "../lore/locations/locationStore.ts";
import { saveStateSchema } from "../state/stateService.ts";
import { writePackEvents } from "../events/eventPack.ts";

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A mind as the snapshot read it (JSON columns as text), in the row writer's terms. */
const storedMind = (r: MindRow): MindValues => ({
  ...r,
  hints: parseJsonColumn<MindLine[]>(r.hints, []),
  restrictions: parseJsonColumn<MindLine[]>(r.restrictions, []),
  responseConfig: parseJsonColumn<StoredResponseConfig>(r.responseConfig, {}),
});

/**
 * Writes a resolved plan. The caller holds the write transaction; rows whose
 * values did not change are not touched (their updated_at stays), so
 * re-importing an unchanged pack writes nothing.
 */
export function writePlan(ctx: ServiceContext, projectId: string, plan: Plan): Record<string, string> {
  const db = ctx.db;
  const now = nowIso(ctx);
  // Locations name documents and documents name locations (and types name types):
  // checking foreign keys at commit lets each table be written in one pass.
  deferForeignKeys(db);

  if (plan.settings && Object.keys(plan.settings).length) {
    const cur = readSettings(ctx, projectId) as unknown as Record<string, unknown>;
    if (Object.entries(plan.settings).some(([k, v]) => cur[k] !== v)) updateSettings(ctx, projectId, plan.settings);
  }

  if (plan.state) saveStateSchema(ctx, projectId, plan.state); // an unchanged schema is not rewritten

  for (const t of plan.tags) {
    if (!t.existing) {
      insertTag(db, projectId, { id: t.id, name: t.name, color: t.color }, now);
    } else if (t.existing.color !== t.color) {
      setTagColor(db, t.id, t.color, now);
    }
  }

  // Names are unique per project and a pack may swap two types' names: park the renamed ones first.
  for (const t of plan.types) {
    if (t.existing && t.existing.name !== t.name) parkTypeName(db, t.id);
  }
  for (const t of plan.types) {
    const cols = [
      t.key, t.name, t.description, t.color, t.isSymmetric ? 1 : 0, t.inverseTypeId,
      JSON.stringify(t.conflictsWithBuiltIn), JSON.stringify(t.conflictsWithCustom),
    ] as const;
    const values = {
      key: t.key, name: t.name, description: t.description, color: t.color, isSymmetric: t.isSymmetric, inverseTypeId: t.inverseTypeId,
      builtIn: cols[6], custom: cols[7],
    };
    const e = t.existing;
    if (!e) {
      insertType(db, projectId, t.id, values, now);
    } else if (e.name !== t.name || !same([e.key, e.name, e.description, e.color, e.isSymmetric ? 1 : 0, e.inverseTypeId, e.conflictsWithBuiltIn, e.conflictsWithCustom] as string[], [...cols] as string[])) {
      updateTypeRow(db, t.id, values, now);
    }
  }

  for (const l of plan.locations) {
    const cols = [l.key, l.name, l.description, l.documentId] as const;
    const e = l.existing;
    if (!e) {
      insertLocation(db, projectId, l.id, l, now);
    } else if (!same([e.key, e.name, e.description, e.documentId] as string[], [...cols] as string[])) {
      updateLocationRow(db, l.id, l, now);
    }
  }

  // Documents and minds go through the lore API's own row writers: one re-index rule, one tag rule.
  for (const d of plan.documents) {
    const gate = { when: d.when, sticky: d.sticky, cooldown: d.cooldown, delay: d.delay };
    saveDocument(ctx, projectId, d.id, { key: d.key, name: d.name, content: d.content, locationId: d.locationId, tagIds: d.tagIds, ...gate, secret: d.secret, reveal: d.reveal }, d.existing);
  }
  for (const m of plan.minds) {
    const values: MindValues = {
      key: m.key, entityName: m.entityName, personality: m.personality, backstory: m.backstory, backstorySummary: m.backstorySummary,
      role: m.role, speakingStyle: m.speakingStyle, hints: m.hints, restrictions: m.restrictions, locationId: m.locationId,
      knowledgeDescription: m.knowledgeDescription, responseConfig: m.responseConfig as StoredResponseConfig, tagIds: m.tagIds,
      knowledge: m.knowledge,
    };
    saveMind(ctx, projectId, m.id, values, m.existing && storedMind(m.existing));
    saveMindBehaviour(ctx, projectId, m.id, m.behaviour);
  }

  for (const r of plan.relationships) {
    const cols = [r.key, r.type, r.customTypeId, r.description, r.fromId, r.toId] as const;
    const e = r.existing;
    if (!e) {
      insertRelationship(db, projectId, r.id, { key: r.key, type: r.type, customTypeId: r.customTypeId, description: r.description, from: r.fromId, to: r.toId }, now);
    } else if (!same([e.key, e.type, e.customTypeId, e.description, e.fromId, e.toId] as string[], [...cols] as string[])) {
      updateRelationshipRow(db, r.id, { key: r.key, type: r.type, customTypeId: r.customTypeId, description: r.description, from: r.fromId, to: r.toId }, now);
    }
  }

  // Events last: they name minds and locations written above.
  return writePackEvents(db, projectId, plan.events, now);
}
