import { firstColumn, type Db } from "../../db/openDatabase.ts";

/** locations: the lore feature owns this table. */

export interface LocationListRow {
  id: string;
  name: string;
  description: string | null;
  document_id: string | null;
  document_name: string | null;
  mind_count: number;
  created_at: string;
  updated_at: string;
}

export interface LocationValues {
  key: string | null;
  name: string;
  description: string | null;
  documentId: string | null;
}

export function insertLocation(db: Db, projectId: string, id: string, l: LocationValues, at: string): void {
  db.query("INSERT INTO locations (key, name, description, document_id, id, project_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run(
    l.key,
    l.name,
    l.description,
    l.documentId,
    id,
    projectId,
    at,
    at,
  );
}

export function updateLocationRow(db: Db, id: string, l: LocationValues, at: string): void {
  db.query("UPDATE locations SET key = ?, name = ?, description = ?, document_id = ?, updated_at = ? WHERE id = ?").run(
    l.key,
    l.name,
    l.description,
    l.documentId,
    at,
    id,
  );
}

export function locationById(db: Db, projectId: string, id: string): LocationValues | null {
  return db
    .query<LocationValues, [string, string]>(
      "SELECT key, name, description, document_id AS documentId FROM locations WHERE id = ? AND project_id = ?",
    )
    .get(id, projectId);
}

export function locationExists(db: Db, projectId: string, id: string): boolean {
  return db.query("SELECT 1 FROM locations WHERE id = ? AND project_id = ?").get(id, projectId) !== null;
}

/** false when there was no such location in the project. */
export function deleteLocationRow(db: Db, projectId: string, id: string): boolean {
  return db.query("DELETE FROM locations WHERE id = ? AND project_id = ?").run(id, projectId).changes > 0;
}

/** The oldest location of that exact name. */
export function locationIdByName(db: Db, projectId: string, name: string): string | null {
  return (
    db.query<{ id: string }, [string, string]>("SELECT id FROM locations WHERE project_id = ? AND name = ? ORDER BY created_at LIMIT 1").get(projectId, name)
      ?.id ?? null
  );
}

/** Location names in creation order (the scanner's vocabulary). */
export function locationNamesByCreation(db: Db, projectId: string): string[] {
  return firstColumn(db, "SELECT name FROM locations WHERE project_id = ? ORDER BY created_at, rowid", projectId);
}

/** GET /lore/locations: by name, with the linked document's name and how many minds live there. */
export function locationsWithCounts(db: Db, projectId: string): LocationListRow[] {
  return db
    .query<LocationListRow, [string]>(
      `SELECT l.id, l.name, l.description, l.document_id, d.name AS document_name, l.created_at, l.updated_at,
              (SELECT COUNT(*) FROM entity_minds m WHERE m.location_id = l.id) AS mind_count
       FROM locations l LEFT JOIN documents d ON d.id = l.document_id
       WHERE l.project_id = ? ORDER BY l.name COLLATE NOCASE, l.name, l.id`,
    )
    .all(projectId);
}

/** Every location of the project in creation order (lore packs). */
export function projectLocations(db: Db, projectId: string): (LocationValues & { id: string })[] {
  return db
    .query<LocationValues & { id: string }, [string]>(
      "SELECT id, key, name, description, document_id AS documentId FROM locations WHERE project_id = ? ORDER BY created_at, id",
    )
    .all(projectId);
}
