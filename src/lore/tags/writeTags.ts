import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { placeholders } from "../sqlList.ts";
import { LIMITS, Problems } from "../validate/fields.ts";

export interface TagInput {
  name?: unknown;
  color?: unknown;
}

interface TagRow {
  id: string;
  name: string;
  color: string | null;
  is_default: number;
}

export function createTag(ctx: ServiceContext, projectId: string, input: TagInput): { id: string; name: string; color: string | null } {
  const p = new Problems();
  const name = p.requiredString("name", input.name, LIMITS.tagName);
  const color = p.color("color", input.color, false) ?? null;
  p.throwIfAny();
  if (findTagByName(ctx, projectId, name!)) throw new ApiError(409, "Tag already exists", { details: [`name: '${name}' is taken`] });
  const id = newId("tag");
  const now = nowIso(ctx);
  ctx.db
    .query("INSERT INTO tags (id, project_id, name, color, is_default, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)")
    .run(id, projectId, name!, color, now, now);
  return { id, name: name!, color };
}

export function updateTag(ctx: ServiceContext, projectId: string, tagId: string, input: TagInput) {
  const row = getTagRow(ctx, projectId, tagId);
  const p = new Problems();
  const name = input.name === undefined ? row.name : p.requiredString("name", input.name, LIMITS.tagName);
  const color = input.color === undefined ? row.color : (p.color("color", input.color, false) ?? null);
  p.throwIfAny();
  if (row.is_default && name !== row.name) throw new ApiError(400, "Invalid request", { details: ["name: default tags cannot be renamed"] });
  const clash = findTagByName(ctx, projectId, name!);
  if (clash && clash.id !== tagId) throw new ApiError(409, "Tag already exists", { details: [`name: '${name}' is taken`] });
  ctx.db.query("UPDATE tags SET name = ?, color = ?, updated_at = ? WHERE id = ?").run(name!, color, nowIso(ctx), tagId);
  // Chunks carry their tag names; a rename re-indexes the documents that use the tag.
  if (name !== row.name) markDocumentsWithTagsPending(ctx, [tagId]);
  return { id: tagId, name: name!, color };
}

export function deleteTag(ctx: ServiceContext, projectId: string, tagId: string): void {
  const row = getTagRow(ctx, projectId, tagId);
  if (row.is_default) throw new ApiError(400, "Invalid request", { details: ["default tags cannot be deleted"] });
  ctx.db.transaction(() => {
    markDocumentsWithTagsPending(ctx, [tagId]);
    ctx.db.query("DELETE FROM tags WHERE id = ?").run(tagId);
  }).immediate();
}

function getTagRow(ctx: ServiceContext, projectId: string, tagId: string): TagRow {
  const row = ctx.db
    .query<TagRow, [string, string]>("SELECT id, name, color, is_default FROM tags WHERE id = ? AND project_id = ?")
    .get(tagId, projectId);
  if (!row) throw notFound("Tag");
  return row;
}

export function findTagByName(ctx: ServiceContext, projectId: string, name: string): TagRow | null {
  return ctx.db
    .query<TagRow, [string, string]>("SELECT id, name, color, is_default FROM tags WHERE project_id = ? AND name = ?")
    .get(projectId, name);
}

/** Maps tag names to ids; returns the names that don't exist in the project. */
export function resolveTagNames(ctx: ServiceContext, projectId: string, names: string[]): { ids: string[]; missing: string[] } {
  const unique = [...new Set(names)];
  if (unique.length === 0) return { ids: [], missing: [] };
  const rows = ctx.db
    .query<{ id: string; name: string }, string[]>(
      `SELECT id, name FROM tags WHERE project_id = ? AND name IN (${placeholders(unique.length)})`,
    )
    .all(projectId, ...unique);
  const byName = new Map(rows.map((r) => [r.name, r.id]));
  return { ids: unique.filter((n) => byName.has(n)).map((n) => byName.get(n)!), missing: unique.filter((n) => !byName.has(n)) };
}

function markDocumentsWithTagsPending(ctx: ServiceContext, tagIds: string[]): void {
  ctx.db
    .query(
      `UPDATE documents SET status = 'PENDING', index_version = index_version + 1, updated_at = ?
       WHERE id IN (SELECT document_id FROM document_tags WHERE tag_id IN (${placeholders(tagIds.length)}))`,
    )
    .run(nowIso(ctx), ...tagIds);
}
