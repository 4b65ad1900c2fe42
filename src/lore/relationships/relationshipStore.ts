import type { Db } from "../../db/openDatabase.ts";

/** relationships and relationship_types: the lore feature owns these tables. */

export interface RelationshipValues {
  key: string | null;
  type: string | null;
  customTypeId: string | null;
  description: string | null;
  from: string;
  to: string;
}

export interface TypeValues {
  key: string | null;
  name: string;
  description: string | null;
  color: string;
  isSymmetric: boolean;
  inverseTypeId: string | null;
  /** JSON lists */
  builtIn: string;
  custom: string;
}

export interface TypeRow {
  id: string;
  key: string | null;
  name: string;
  description: string | null;
  color: string;
  is_symmetric: number;
  inverse_type_id: string | null;
  conflicts_with_built_in: string;
  conflicts_with_custom: string;
}

export interface RelListRow {
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

export interface MindRelationRow {
  from_mind_id: string;
  type: string | null;
  ct_name: string | null;
  ct_symmetric: number | null;
  inv_name: string | null;
  description: string | null;
  from_name: string;
  to_name: string;
}

// ---- relationships

const REL_SELECT =
  "SELECT id, key, type, custom_type_id AS customTypeId, description, from_mind_id AS fromId, to_mind_id AS toId FROM relationships";

export function insertRelationship(db: Db, projectId: string, id: string, r: RelationshipValues, at: string): void {
  db.query(
    `INSERT INTO relationships (key, type, custom_type_id, description, from_mind_id, to_mind_id, id, project_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(r.key, r.type, r.customTypeId, r.description, r.from, r.to, id, projectId, at, at);
}

export function updateRelationshipRow(db: Db, id: string, r: RelationshipValues, at: string): void {
  db.query(
    `UPDATE relationships SET key = ?, type = ?, custom_type_id = ?, description = ?, from_mind_id = ?, to_mind_id = ?, updated_at = ?
     WHERE id = ?`,
  ).run(r.key, r.type, r.customTypeId, r.description, r.from, r.to, at, id);
}

export function relationshipById(db: Db, projectId: string, id: string): StoredRelationshipRow | null {
  return db.query<StoredRelationshipRow, [string, string]>(`${REL_SELECT} WHERE id = ? AND project_id = ?`).get(id, projectId);
}

export function deleteRelationshipRow(db: Db, projectId: string, id: string): boolean {
  return db.query("DELETE FROM relationships WHERE id = ? AND project_id = ?").run(id, projectId).changes > 0;
}

/** Whether the mind exists in the project (relationships link minds of one project). */
export function mindInProject(db: Db, projectId: string, mindId: string): boolean {
  return db.query("SELECT 1 FROM entity_minds WHERE id = ? AND project_id = ?").get(mindId, projectId) !== null;
}

/** A page of the project's relationships with both ends' names and locations, oldest first, and the total. */
export function relationshipPage(
  db: Db,
  projectId: string,
  f: { entityMindId?: string; between?: [string, string] },
  page: { limit: number; offset: number },
): { total: number; rows: RelListRow[] } {
  let where = "r.project_id = ?";
  const params: (string | number)[] = [projectId];
  if (f.entityMindId) {
    where += " AND (r.from_mind_id = ? OR r.to_mind_id = ?)";
    params.push(f.entityMindId, f.entityMindId);
  }
  if (f.between) {
    const [a, b] = f.between;
    where += " AND ((r.from_mind_id = ? AND r.to_mind_id = ?) OR (r.from_mind_id = ? AND r.to_mind_id = ?))";
    params.push(a, b, b, a);
  }
  const total = db.query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM relationships r WHERE ${where}`).get(...params)!.n;
  const rows = db
    .query<RelListRow, (string | number)[]>(
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
    .all(...params, page.limit, page.offset);
  return { total, rows };
}

/** Relationships per mind, either end (a self-relationship counts once). */
export function relationshipCountsByMind(db: Db, projectId: string): Map<string, number> {
  const rows = db
    .query<{ mind_id: string; n: number }, [string, string]>(
      `SELECT mind_id, SUM(n) AS n FROM (
         SELECT from_mind_id AS mind_id, COUNT(*) AS n FROM relationships WHERE project_id = ? GROUP BY from_mind_id
         UNION ALL
         SELECT to_mind_id AS mind_id, COUNT(*) AS n FROM relationships WHERE project_id = ? AND to_mind_id <> from_mind_id GROUP BY to_mind_id
       ) GROUP BY mind_id`,
    )
    .all(projectId, projectId);
  return new Map(rows.map((r) => [r.mind_id, r.n]));
}

/**
 * A mind's relationships (either end) with names and custom type details, oldest first, at most `limit`. Those made
 * together (a pack's, written in one transaction at one time) come in the order they were written, the order an
 * author listed them: by id they would come in a new order at every import (ids are random), and so would the
 * mind's "People you know" lines and every reply drawn from them.
 */
export function relationshipsOfMind(db: Db, projectId: string, mindId: string, limit: number): MindRelationRow[] {
  return db
    .query<MindRelationRow, [string, string, string, number]>(
      `SELECT r.from_mind_id, r.type, ct.name AS ct_name, ct.is_symmetric AS ct_symmetric, inv.name AS inv_name, r.description,
              f.entity_name AS from_name, t.entity_name AS to_name
       FROM relationships r
       JOIN entity_minds f ON f.id = r.from_mind_id JOIN entity_minds t ON t.id = r.to_mind_id
       LEFT JOIN relationship_types ct ON ct.id = r.custom_type_id
       LEFT JOIN relationship_types inv ON inv.id = ct.inverse_type_id
       WHERE r.project_id = ? AND (r.from_mind_id = ? OR r.to_mind_id = ?)
       ORDER BY r.created_at, r.rowid LIMIT ?`,
    )
    .all(projectId, mindId, mindId, limit);
}

// ---- relationship types

const typeCols = (t: TypeValues) => [t.key, t.name, t.description, t.color, t.isSymmetric ? 1 : 0, t.inverseTypeId, t.builtIn, t.custom] as const;

export function insertType(db: Db, projectId: string, id: string, t: TypeValues, at: string): void {
  db.query(
    `INSERT INTO relationship_types (key, name, description, color, is_symmetric, inverse_type_id, conflicts_with_built_in,
       conflicts_with_custom, id, project_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(...typeCols(t), id, projectId, at, at);
}

export function updateTypeRow(db: Db, id: string, t: TypeValues, at: string): void {
  db.query(
    `UPDATE relationship_types SET key = ?, name = ?, description = ?, color = ?, is_symmetric = ?, inverse_type_id = ?,
       conflicts_with_built_in = ?, conflicts_with_custom = ?, updated_at = ? WHERE id = ?`,
  ).run(...typeCols(t), at, id);
}

/** Names are unique per project: a pack swapping two types' names parks the renamed ones first. */
export function parkTypeName(db: Db, id: string): void {
  db.query("UPDATE relationship_types SET name = ? WHERE id = ?").run(`\u0000${id}`, id);
}

export function typeExists(db: Db, projectId: string, id: string): boolean {
  return db.query("SELECT 1 FROM relationship_types WHERE id = ? AND project_id = ?").get(id, projectId) !== null;
}

export function typeById(db: Db, projectId: string, id: string): TypeRow | null {
  return db.query<TypeRow, [string, string]>("SELECT * FROM relationship_types WHERE id = ? AND project_id = ?").get(id, projectId);
}

export function typeIdByName(db: Db, projectId: string, name: string): string | null {
  return db.query<{ id: string }, [string, string]>("SELECT id FROM relationship_types WHERE project_id = ? AND name = ?").get(projectId, name)?.id ?? null;
}

export function deleteTypeRow(db: Db, projectId: string, id: string): boolean {
  return db.query("DELETE FROM relationship_types WHERE id = ? AND project_id = ?").run(id, projectId).changes > 0;
}

/** The project's custom types with how many relationships use each, by name. */
export function typesWithUsage(db: Db, projectId: string): (TypeRow & { usage: number; created_at: string; updated_at: string })[] {
  return db
    .query<TypeRow & { usage: number; created_at: string; updated_at: string }, [string]>(
      `SELECT ct.*, (SELECT COUNT(*) FROM relationships r WHERE r.custom_type_id = ct.id) AS usage
       FROM relationship_types ct WHERE ct.project_id = ? ORDER BY ct.name COLLATE NOCASE, ct.id`,
    )
    .all(projectId);
}

/** A custom type as lore packs compare it (JSON lists as text). */
export interface StoredType extends Omit<TypeValues, "builtIn" | "custom"> {
  id: string;
  /** JSON text as stored */
  conflictsWithBuiltIn: string;
  conflictsWithCustom: string;
}

/** A relationship as lore packs compare it. */
export interface StoredRelationshipRow {
  id: string;
  key: string | null;
  type: string | null;
  customTypeId: string | null;
  description: string | null;
  fromId: string;
  toId: string;
}

/** Every custom type of the project in creation order (lore packs). */
export function projectTypes(db: Db, projectId: string): StoredType[] {
  return db
    .query<Omit<StoredType, "isSymmetric"> & { isSymmetric: number }, [string]>(
      `SELECT id, key, name, description, color, is_symmetric AS isSymmetric, inverse_type_id AS inverseTypeId,
              conflicts_with_built_in AS conflictsWithBuiltIn, conflicts_with_custom AS conflictsWithCustom
       FROM relationship_types WHERE project_id = ? ORDER BY created_at, id`,
    )
    .all(projectId)
    .map((t) => ({ ...t, isSymmetric: t.isSymmetric === 1 }));
}

/** Every relationship of the project in creation order (lore packs). */
export function projectRelationships(db: Db, projectId: string): StoredRelationshipRow[] {
  return db
    .query<StoredRelationshipRow, [string]>(
      `${REL_SELECT} WHERE project_id = ? ORDER BY created_at, id`,
    )
    .all(projectId);
}
