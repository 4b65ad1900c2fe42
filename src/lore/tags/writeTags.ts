import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { deleteTagRow, insertTag, tagById, tagByName, tagsNamed, updateTagRow, type TagRow } from "./tagStore.ts";
import { markDocumentsWithTagsPending } from "../documents/documentStore.ts";
import { LIMITS, Problems } from "../validate/fields.ts";

export interface TagInput {
  name?: unknown;
  color?: unknown;
}

export function createTag(ctx: ServiceContext, projectId: string, input: TagInput): { id: string; name: string; color: string | null } {
  const p = new Problems();
  const name = p.requiredString("name", input.name, LIMITS.tagName);
  const color = p.color("color", input.color, false) ?? null;
  p.throwIfAny();
  if (findTagByName(ctx, projectId, name!)) throw new ApiError(409, "Tag already exists", { details: [`name: '${name}' is taken`] });
  const id = newId("tag");
  const now = nowIso(ctx);
  insertTag(ctx.db, projectId, { id, name: name!, color }, now);
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
  updateTagRow(ctx.db, tagId, { name: name!, color }, nowIso(ctx));
  // Chunks carry their tag names; a rename re-indexes the documents that use the tag.
  if (name !== row.name) markDocumentsWithTagsPending(ctx.db, [tagId], nowIso(ctx));
  return { id: tagId, name: name!, color };
}

export function deleteTag(ctx: ServiceContext, projectId: string, tagId: string): void {
  const row = getTagRow(ctx, projectId, tagId);
  if (row.is_default) throw new ApiError(400, "Invalid request", { details: ["default tags cannot be deleted"] });
  ctx.db.transaction(() => {
    markDocumentsWithTagsPending(ctx.db, [tagId], nowIso(ctx));
    deleteTagRow(ctx.db, tagId);
  }).immediate();
}

function getTagRow(ctx: ServiceContext, projectId: string, tagId: string): TagRow {
  const row = tagById(ctx.db, projectId, tagId);
  if (!row) throw notFound("Tag");
  return row;
}

export function findTagByName(ctx: ServiceContext, projectId: string, name: string): TagRow | null {
  return tagByName(ctx.db, projectId, name);
}

/** Maps tag names to ids; returns the names that don't exist in the project. */
export function resolveTagNames(ctx: ServiceContext, projectId: string, names: string[]): { ids: string[]; missing: string[] } {
  const unique = [...new Set(names)];
  if (unique.length === 0) return { ids: [], missing: [] };
  const rows = tagsNamed(ctx.db, projectId, unique);
  const byName = new Map(rows.map((r) => [r.name, r.id]));
  return { ids: unique.filter((n) => byName.has(n)).map((n) => byName.get(n)!), missing: unique.filter((n) => !byName.has(n)) };
}
