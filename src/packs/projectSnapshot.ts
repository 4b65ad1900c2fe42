import type { ServiceContext } from "../core/context.ts";
import { DEFAULT_TAGS } from "../projects/defaults.ts";
import { groupBy } from "../lore/sqlList.ts";
import { assignKeys } from "./stableKeys.ts";

export interface TagRow {
  id: string;
  name: string;
  color: string | null;
  isDefault: boolean;
}
export interface LocationRow {
  id: string;
  key: string | null;
  name: string;
  description: string | null;
  documentId: string | null;
}
export interface DocumentRow {
  id: string;
  key: string | null;
  name: string;
  content: string;
  locationId: string | null;
  /** sorted */
  tagIds: string[];
}
export interface MindRow {
  id: string;
  key: string | null;
  entityName: string;
  personality: string;
  backstory: string | null;
  backstorySummary: string | null;
  role: string | null;
  speakingStyle: string | null;
  /** JSON text as stored */
  hints: string;
  restrictions: string;
  locationId: string | null;
  knowledgeDescription: string | null;
  responseConfig: string;
  /** sorted */
  tagIds: string[];
}
export interface TypeRow {
  id: string;
  key: string | null;
  name: string;
  description: string | null;
  color: string;
  isSymmetric: boolean;
  inverseTypeId: string | null;
  /** JSON text as stored */
  conflictsWithBuiltIn: string;
  conflictsWithCustom: string;
}
export interface RelationshipRow {
  id: string;
  key: string | null;
  type: string | null;
  customTypeId: string | null;
  description: string | null;
  fromId: string;
  toId: string;
}

/** Rows of one kind by pack key (stored keys, plus generated ones for key-less rows) and the key of each id. */
export class Keyed<R extends { id: string; key: string | null }> {
  readonly keyOf = new Map<string, string>();
  constructor(readonly byKey: Map<string, R>) {
    for (const [k, r] of byKey) this.keyOf.set(r.id, k);
  }
}

/** Everything a pack can refer to in a project, loaded at once (a pack touches most of it anyway). */
export interface ProjectSnapshot {
  tags: Map<string, TagRow>;
  tagNameOf: Map<string, string>;
  locations: Keyed<LocationRow>;
  documents: Keyed<DocumentRow>;
  minds: Keyed<MindRow>;
  types: Keyed<TypeRow>;
  /** every relationship, in creation order */
  relationships: RelationshipRow[];
  /** relationships by key: stored keys, and generated ones for key-less repeats of one (from, to, type) */
  relationshipKeys: Keyed<RelationshipRow>;
  /** the other key-less relationships, by relationshipIdentity */
  keylessRelationships: Map<string, RelationshipRow>;
}

/** What identifies a key-less relationship: its minds and its type. */
export function relationshipIdentity(fromId: string, toId: string, type: string | null, customTypeId: string | null): string {
  return `${fromId}|${toId}|${type ?? ""}|${customTypeId ?? ""}`;
}

/** What a project that does not exist yet will hold: its default tags. */
export function newProjectSnapshot(): ProjectSnapshot {
  const tags = new Map(DEFAULT_TAGS.map((name) => [name, { id: "", name, color: null, isDefault: true }]));
  const none = () => new Keyed(new Map());
  return {
    tags, tagNameOf: new Map(), locations: none(), documents: none(), minds: none(), types: none(),
    relationships: [], relationshipKeys: none(), keylessRelationships: new Map(),
  };
}

export function loadSnapshot(ctx: ServiceContext, projectId: string): ProjectSnapshot {
  const db = ctx.db;
  const tagRows = db
    .query<{ id: string; name: string; color: string | null; is_default: number }, [string]>(
      "SELECT id, name, color, is_default FROM tags WHERE project_id = ? ORDER BY name",
    )
    .all(projectId);
  const tags = new Map(tagRows.map((t) => [t.name, { id: t.id, name: t.name, color: t.color, isDefault: t.is_default === 1 }]));

  const ORDER = "ORDER BY created_at, id";
  const locations = db
    .query<LocationRow, [string]>(
      `SELECT id, key, name, description, document_id AS documentId FROM locations WHERE project_id = ? ${ORDER}`,
    )
    .all(projectId);

  const docTags = groupBy(
    db
      .query<{ document_id: string; tag_id: string }, [string]>(
        "SELECT dt.document_id, dt.tag_id FROM document_tags dt JOIN documents d ON d.id = dt.document_id WHERE d.project_id = ?",
      )
      .all(projectId),
    (r) => r.document_id,
  );
  const documents = db
    .query<Omit<DocumentRow, "tagIds">, [string]>(
      `SELECT id, key, name, content, location_id AS locationId FROM documents WHERE project_id = ? ${ORDER}`,
    )
    .all(projectId)
    .map((d) => ({ ...d, tagIds: (docTags.get(d.id) ?? []).map((t) => t.tag_id).sort() }));

  const mindTags = groupBy(
    db
      .query<{ mind_id: string; tag_id: string }, [string]>(
        "SELECT mk.mind_id, mk.tag_id FROM mind_knowledge_tags mk JOIN entity_minds m ON m.id = mk.mind_id WHERE m.project_id = ?",
      )
      .all(projectId),
    (r) => r.mind_id,
  );
  const minds = db
    .query<Omit<MindRow, "tagIds">, [string]>(
      `SELECT id, key, entity_name AS entityName, personality, backstory, backstory_summary AS backstorySummary, role,
              speaking_style AS speakingStyle, hints, restrictions, location_id AS locationId,
              knowledge_description AS knowledgeDescription, response_config AS responseConfig
       FROM entity_minds WHERE project_id = ? ${ORDER}`,
    )
    .all(projectId)
    .map((m) => ({ ...m, tagIds: (mindTags.get(m.id) ?? []).map((t) => t.tag_id).sort() }));

  const types = db
    .query<Omit<TypeRow, "isSymmetric"> & { isSymmetric: number }, [string]>(
      `SELECT id, key, name, description, color, is_symmetric AS isSymmetric, inverse_type_id AS inverseTypeId,
              conflicts_with_built_in AS conflictsWithBuiltIn, conflicts_with_custom AS conflictsWithCustom
       FROM relationship_types WHERE project_id = ? ${ORDER}`,
    )
    .all(projectId)
    .map((t) => ({ ...t, isSymmetric: t.isSymmetric === 1 }));

  const relationships = db
    .query<RelationshipRow, [string]>(
      `SELECT id, key, type, custom_type_id AS customTypeId, description, from_mind_id AS fromId, to_mind_id AS toId
       FROM relationships WHERE project_id = ? ${ORDER}`,
    )
    .all(projectId);

  const mindKeys = new Keyed(assignKeys(minds, (r) => r.entityName, "mind"));
  const typeKeys = new Keyed(assignKeys(types, (r) => r.name, "type"));
  // A pack names a key-less relationship by (from, to, type); when the admin API made several
  // alike, the first keeps that identity and the others get generated keys.
  const keylessRelationships = new Map<string, RelationshipRow>();
  const needKeys: RelationshipRow[] = [];
  for (const r of relationships) {
    if (r.key !== null) needKeys.push(r);
    else {
      const identity = relationshipIdentity(r.fromId, r.toId, r.type, r.customTypeId);
      if (keylessRelationships.has(identity)) needKeys.push(r);
      else keylessRelationships.set(identity, r);
    }
  }
  const relName = (r: RelationshipRow) =>
    `${mindKeys.keyOf.get(r.fromId)} ${mindKeys.keyOf.get(r.toId)} ${r.type ?? typeKeys.keyOf.get(r.customTypeId!)}`;

  return {
    tags,
    tagNameOf: new Map(tagRows.map((t) => [t.id, t.name])),
    locations: new Keyed(assignKeys(locations, (r) => r.name, "location")),
    documents: new Keyed(assignKeys(documents, (r) => r.name, "document")),
    minds: mindKeys,
    types: typeKeys,
    relationships,
    relationshipKeys: new Keyed(assignKeys(needKeys, relName, "relationship")),
    keylessRelationships,
  };
}
