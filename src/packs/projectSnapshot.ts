import type { ServiceContext } from "../core/context.ts";
import { DEFAULT_TAGS } from "../projects/defaults.ts";
import { projectTags } from "../lore/tags/tagStore.ts";
import { projectLocations, type LocationValues } from "../lore/locations/locationStore.ts";
import { projectDocuments, type DocumentValues } from "../lore/documents/documentStore.ts";
import { projectMinds, type StoredMind } from "../lore/minds/mindStore.ts";
import { projectRelationships, projectTypes, type StoredRelationshipRow, type StoredType } from "../lore/relationships/relationshipStore.ts";
import { assignKeys } from "./stableKeys.ts";
import { EMPTY_SCHEMA, type StateSchema } from "../state/stateSchema.ts";
import { readStateSchema } from "../state/stateService.ts";

export interface TagRow {
  id: string;
  name: string;
  color: string | null;
  isDefault: boolean;
}
export type LocationRow = LocationValues & { id: string };
export type DocumentRow = DocumentValues & { id: string };
export type MindRow = StoredMind;
export type TypeRow = StoredType;
export type RelationshipRow = StoredRelationshipRow;

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
  /** the project's state declarations (conditions are checked against them) */
  stateSchema: StateSchema;
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
    relationships: [], relationshipKeys: none(), keylessRelationships: new Map(), stateSchema: EMPTY_SCHEMA,
  };
}

export function loadSnapshot(ctx: ServiceContext, projectId: string): ProjectSnapshot {
  const db = ctx.db;
  const tagRows = projectTags(db, projectId);
  const tags = new Map(tagRows.map((t) => [t.name, { id: t.id, name: t.name, color: t.color, isDefault: t.is_default === 1 }]));
  const locations = projectLocations(db, projectId);
  const documents = projectDocuments(db, projectId);
  const minds = projectMinds(db, projectId);
  const types = projectTypes(db, projectId);
  const relationships = projectRelationships(db, projectId);

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
    stateSchema: readStateSchema(ctx, projectId),
  };
}
