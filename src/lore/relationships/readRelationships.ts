import type { ServiceContext } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import type { Page } from "../pagination.ts";
import { relationshipPage, typesWithUsage } from "./relationshipStore.ts";

interface EntityRef {
  id: string;
  entityName: string;
  location: { id: string; name: string } | null;
}

export interface RelationshipView {
  id: string;
  type: string | null;
  customTypeId: string | null;
  customType: { id: string; name: string; color: string } | null;
  description: string | null;
  fromEntity: EntityRef;
  toEntity: EntityRef;
  createdAt: string;
  updatedAt: string;
}

export interface RelationshipQuery extends Page {
  entityMindId?: string;
  fromEntityId?: string;
  toEntityId?: string;
}

/** GET /lore/relationships. The caller has checked that fromEntityId/toEntityId come together. */
export function readRelationships(ctx: ServiceContext, projectId: string, q: RelationshipQuery) {
  const between: [string, string] | undefined = q.fromEntityId && q.toEntityId ? [q.fromEntityId, q.toEntityId] : undefined;
  const { total, rows } = relationshipPage(ctx.db, projectId, { entityMindId: q.entityMindId, between }, q);
  const ref = (id: string, name: string, locId: string | null, locName: string | null): EntityRef => ({
    id,
    entityName: name,
    location: locId ? { id: locId, name: locName ?? "" } : null,
  });
  const relationships: RelationshipView[] = rows.map((r) => ({
    id: r.id,
    type: r.type,
    customTypeId: r.custom_type_id,
    customType: r.custom_type_id ? { id: r.custom_type_id, name: r.ct_name ?? "", color: r.ct_color ?? "" } : null,
    description: r.description,
    fromEntity: ref(r.from_id, r.from_name, r.from_loc_id, r.from_loc_name),
    toEntity: ref(r.to_id, r.to_name, r.to_loc_id, r.to_loc_name),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
  return { relationships, totalCount: total };
}

export interface RelationshipTypeView {
  id: string;
  name: string;
  description: string | null;
  color: string;
  isSymmetric: boolean;
  inverseTypeId: string | null;
  conflictsWithBuiltIn: string[];
  conflictsWithCustom: string[];
  usageCount: number;
  createdAt: string;
  updatedAt: string;
}

/** GET /lore/relationship-types: the project's custom types, by name. */
export function readRelationshipTypes(ctx: ServiceContext, projectId: string): RelationshipTypeView[] {
  return typesWithUsage(ctx.db, projectId)
    .map((r) => ({
      id: r.id,
      name: r.name,
      description: r.description,
      color: r.color,
      isSymmetric: r.is_symmetric === 1,
      inverseTypeId: r.inverse_type_id,
      conflictsWithBuiltIn: parseJsonColumn<string[]>(r.conflicts_with_built_in, []),
      conflictsWithCustom: parseJsonColumn<string[]>(r.conflicts_with_custom, []),
      usageCount: r.usage,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }));
}
