import type { ServiceContext } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import type { Page } from "../pagination.ts";

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

interface RelRow {
  id: string;
  type: string | null;
  custom_type_id: string | null;
  ct_name: string | null;
  ct_color: string | null;
  description: string | null;
  from_id: string;
  from_name: string;
  from_loc_id: string | null;
  from_loc_name: string | null;
  to_id: string;
  to_name: string;
  to_loc_id: string | null;
  to_loc_name: string | null;
  created_at: string;
  updated_at: string;
}

/** GET /lore/relationships. The caller has checked that fromEntityId/toEntityId come together. */
export function readRelationships(ctx: ServiceContext, projectId: string, q: RelationshipQuery) {
  let where = "r.project_id = ?";
  const params: (string | number)[] = [projectId];
  if (q.entityMindId) {
    where += " AND (r.from_mind_id = ? OR r.to_mind_id = ?)";
    params.push(q.entityMindId, q.entityMindId);
  }
  if (q.fromEntityId && q.toEntityId) {
    where += " AND ((r.from_mind_id = ? AND r.to_mind_id = ?) OR (r.from_mind_id = ? AND r.to_mind_id = ?))";
    params.push(q.fromEntityId, q.toEntityId, q.toEntityId, q.fromEntityId);
  }
  const total = ctx.db
    .query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM relationships r WHERE ${where}`)
    .get(...params)!.n;
  const rows = ctx.db
    .query<RelRow, (string | number)[]>(
      `SELECT r.id, r.type, r.custom_type_id, ct.name AS ct_name, ct.color AS ct_color, r.description,
              f.id AS from_id, f.entity_name AS from_name, fl.id AS from_loc_id, fl.name AS from_loc_name,
              t.id AS to_id, t.entity_name AS to_name, tl.id AS to_loc_id, tl.name AS to_loc_name,
              r.created_at, r.updated_at
       FROM relationships r
       JOIN entity_minds f ON f.id = r.from_mind_id
       JOIN entity_minds t ON t.id = r.to_mind_id
       LEFT JOIN locations fl ON fl.id = f.location_id
       LEFT JOIN locations tl ON tl.id = t.location_id
       LEFT JOIN relationship_types ct ON ct.id = r.custom_type_id
       WHERE ${where} ORDER BY r.created_at, r.id LIMIT ? OFFSET ?`,
    )
    .all(...params, q.limit, q.offset);
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
  return ctx.db
    .query<
      {
        id: string;
        name: string;
        description: string | null;
        color: string;
        is_symmetric: number;
        inverse_type_id: string | null;
        conflicts_with_built_in: string;
        conflicts_with_custom: string;
        usage: number;
        created_at: string;
        updated_at: string;
      },
      [string]
    >(
      `SELECT ct.*, (SELECT COUNT(*) FROM relationships r WHERE r.custom_type_id = ct.id) AS usage
       FROM relationship_types ct WHERE ct.project_id = ? ORDER BY ct.name COLLATE NOCASE, ct.id`,
    )
    .all(projectId)
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
