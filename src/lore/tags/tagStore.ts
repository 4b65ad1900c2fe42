import { firstColumn, type Db } from "../../db/openDatabase.ts";
import { placeholders } from "../sqlList.ts";

/** tags: the lore feature owns this table (documents and minds link to it by id). */

export interface TagRow {
  id: string;
  name: string;
  color: string | null;
  is_default: number;
}

/** A project's default tags (is_default = 1), at creation. */
export function insertDefaultTags(db: Db, projectId: string, tags: { id: string; name: string }[], at: string): void {
  const ins = db.query("INSERT INTO tags (id, project_id, name, color, is_default, created_at, updated_at) VALUES (?, ?, ?, NULL, 1, ?, ?)");
  for (const t of tags) ins.run(t.id, projectId, t.name, at, at);
}

export function insertTag(db: Db, projectId: string, t: { id: string; name: string; color: string | null }, at: string): void {
  db.query("INSERT INTO tags (id, project_id, name, color, is_default, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)").run(
    t.id,
    projectId,
    t.name,
    t.color,
    at,
    at,
  );
}

export function updateTagRow(db: Db, id: string, t: { name: string; color: string | null }, at: string): void {
  db.query("UPDATE tags SET name = ?, color = ?, updated_at = ? WHERE id = ?").run(t.name, t.color, at, id);
}

export function setTagColor(db: Db, id: string, color: string | null, at: string): void {
  db.query("UPDATE tags SET color = ?, updated_at = ? WHERE id = ?").run(color, at, id);
}

export function deleteTagRow(db: Db, id: string): void {
  db.query("DELETE FROM tags WHERE id = ?").run(id);
}

export function tagById(db: Db, projectId: string, tagId: string): TagRow | null {
  return db.query<TagRow, [string, string]>("SELECT id, name, color, is_default FROM tags WHERE id = ? AND project_id = ?").get(tagId, projectId);
}

export function tagByName(db: Db, projectId: string, name: string): TagRow | null {
  return db.query<TagRow, [string, string]>("SELECT id, name, color, is_default FROM tags WHERE project_id = ? AND name = ?").get(projectId, name);
}

/** The tags among `names` that exist in the project (names unique). */
export function tagsNamed(db: Db, projectId: string, names: string[]): { id: string; name: string }[] {
  if (names.length === 0) return [];
  return db
    .query<{ id: string; name: string }, string[]>(`SELECT id, name FROM tags WHERE project_id = ? AND name IN (${placeholders(names.length)})`)
    .all(projectId, ...names);
}

/** Every tag with its document count, defaults first then by name (GET /lore/tags). */
export function tagsWithDocumentCounts(db: Db, projectId: string): (TagRow & { document_count: number })[] {
  return db
    .query<TagRow & { document_count: number }, [string]>(
      `SELECT t.id, t.name, t.color, t.is_default,
              (SELECT COUNT(*) FROM document_tags dt WHERE dt.tag_id = t.id) AS document_count
       FROM tags t WHERE t.project_id = ? ORDER BY t.is_default DESC, t.name, t.id`,
    )
    .all(projectId);
}

/** Tag names, defaults first, then in creation order (the scanner's vocabulary). */
export function tagNamesDefaultsFirst(db: Db, projectId: string): string[] {
  return firstColumn(db, "SELECT name FROM tags WHERE project_id = ? ORDER BY is_default DESC, created_at, rowid", projectId);
}

/** Every tag of the project, by name (lore packs). */
export function projectTags(db: Db, projectId: string): TagRow[] {
  return db.query<TagRow, [string]>("SELECT id, name, color, is_default FROM tags WHERE project_id = ? ORDER BY name").all(projectId);
}
