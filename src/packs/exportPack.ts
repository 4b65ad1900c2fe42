import type { MindLine } from "../lore/minds/personaFields.ts";
import { stringify } from "yaml";
import type { ServiceContext } from "../core/context.ts";
import { parseJsonColumn } from "../core/json.ts";
import { getProject } from "../projects/projectService.ts";
import { readSettings } from "../projects/settings.ts";
import { readStateSchema } from "../state/stateService.ts";
import { loadSnapshot } from "./projectSnapshot.ts";
import { projectBehaviours } from "../behaviour/behaviourStore.ts";
import { exportPackEvents } from "../events/eventPack.ts";
import type { Pack, PackDocument, PackFormat, PackLocation, PackMind, PackRelationship, PackRelationshipType, PackTag } from "./types.ts";

const byKey = <T extends { key: string }>(a: T, b: T) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Drops null, undefined and empty-list fields, so the pack says only what is set. */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0)),
  ) as T;
}

/**
 * A project as a lore pack: every section, references by key (rows authored
 * without a key get a stable generated one, see stableKeys.ts), entries
 * ordered by key so that exports diff cleanly. Default tags appear only when
 * given a colour; documents' index state is not part of a pack.
 */
export function exportPack(ctx: ServiceContext, projectId: string): Pack {
  const project = getProject(ctx, projectId);
  const s = readSettings(ctx, projectId);
  const snap = loadSnapshot(ctx, projectId);
  const tagNames = (ids: string[]) => ids.map((id) => snap.tagNameOf.get(id)!).sort();
  const locKey = (id: string | null) => (id ? snap.locations.keyOf.get(id) : undefined);

  const tags: PackTag[] = [...snap.tags.values()]
    .filter((t) => !t.isDefault || t.color !== null)
    .map((t) => compact({ name: t.name, color: t.color }));

  const relationshipTypes: PackRelationshipType[] = [...snap.types.byKey]
    .map(([key, t]) =>
      compact({
        key,
        name: t.name,
        description: t.description,
        color: t.color,
        isSymmetric: t.isSymmetric || undefined,
        inverse: t.inverseTypeId ? snap.types.keyOf.get(t.inverseTypeId) : undefined,
        conflictsWithBuiltIn: parseJsonColumn<PackRelationshipType["conflictsWithBuiltIn"]>(t.conflictsWithBuiltIn, []),
        // stored as ids without a foreign key: a deleted type simply drops out
        conflictsWithCustom: parseJsonColumn<string[]>(t.conflictsWithCustom, []).flatMap((id) => snap.types.keyOf.get(id) ?? []),
      }),
    )
    .sort(byKey);

  const locations: PackLocation[] = [...snap.locations.byKey]
    .map(([key, l]) =>
      compact({ key, name: l.name, description: l.description, document: l.documentId ? snap.documents.keyOf.get(l.documentId) : undefined }),
    )
    .sort(byKey);

  const behaviours = projectBehaviours(ctx.db, projectId);
  const minds: PackMind[] = [...snap.minds.byKey]
    .map(([key, m]) => {
      const rc = parseJsonColumn<Record<string, unknown>>(m.responseConfig, {});
      return compact({
        key,
        entityName: m.entityName,
        personality: m.personality,
        backstory: m.backstory,
        backstorySummary: m.backstorySummary,
        role: m.role,
        speakingStyle: m.speakingStyle,
        hints: parseJsonColumn<MindLine[]>(m.hints, []),
        restrictions: parseJsonColumn<MindLine[]>(m.restrictions, []),
        location: locKey(m.locationId),
        knowledgeTags: tagNames(m.tagIds),
        knowledge: m.knowledge.map((k) => ({ tag: snap.tagNameOf.get(k.tagId)!, when: k.when })),
        knowledgeDescription: m.knowledgeDescription,
        responseConfig: Object.keys(rc).length ? (compact(rc) as PackMind["responseConfig"]) : undefined,
        behaviour: behaviours.get(m.id),
      });
    })
    .sort(byKey);

  const mindKey = (id: string) => snap.minds.keyOf.get(id)!;
  const relationships: PackRelationship[] = snap.relationships
    .map((r) =>
      compact({
        key: snap.relationshipKeys.keyOf.get(r.id),
        from: mindKey(r.fromId),
        to: mindKey(r.toId),
        type: r.type as PackRelationship["type"],
        customType: r.customTypeId ? snap.types.keyOf.get(r.customTypeId) : undefined,
        description: r.description,
      }),
    )
    .sort((a, b) => {
      const ka = [a.from, a.to, a.type ?? a.customType ?? "", a.key ?? ""].join("\u0000");
      const kb = [b.from, b.to, b.type ?? b.customType ?? "", b.key ?? ""].join("\u0000");
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });

  const documents: PackDocument[] = [...snap.documents.byKey]
    .map(([key, d]) =>
      compact({
        key, name: d.name, tags: tagNames(d.tagIds), location: locKey(d.locationId),
        when: d.when, sticky: d.sticky, cooldown: d.cooldown, delay: d.delay, secret: d.secret || undefined, reveal: d.reveal ?? undefined, content: d.content,
      }),
    )
    .sort(byKey);

  const events = exportPackEvents(ctx.db, projectId, (id) => snap.minds.keyOf.get(id), locKey);
  const state = readStateSchema(ctx, projectId);
  const hasState = Object.keys(state.stateKeys).length > 0 || state.exclusiveGroups.length > 0;

  return {
    project: { name: project.name },
    settings: {
      longTermMemoryEnabled: s.longTermMemoryEnabled,
      maxSessionLength: s.maxSessionLength,
      maxSessionTokens: s.maxSessionTokens,
      enhancedMemoryRetrieval: s.enhancedMemoryRetrieval,
    },
    ...(hasState ? { state: compact({ stateKeys: Object.keys(state.stateKeys).length ? state.stateKeys : undefined, exclusiveGroups: state.exclusiveGroups }) } : {}),
    tags,
    locations,
    relationshipTypes,
    minds,
    relationships,
    documents,
    ...(events.length ? { events } : {}),
  };
}

/** A pack as file text: YAML with multi-line text as literal blocks, or indented JSON. */
export function serializePack(pack: Pack, format: PackFormat): string {
  if (format === "json") return `${JSON.stringify(pack, null, 2)}\n`;
  return stringify(pack, { lineWidth: 0, blockQuote: "literal", aliasDuplicateObjects: false });
}
