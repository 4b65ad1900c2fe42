import type { ServiceContext } from "../../core/context.ts";

export interface TagView {
  id: string;
  name: string;
  color: string | null;
  isDefault?: boolean;
  documentCount: number;
}

interface TagRow {
  id: string;
  name: string;
  color: string | null;
  is_default: number;
  document_count: number;
}

/** GET /lore/tags: all tags (with isDefault), and the default/custom split (without it). */
export function readTags(ctx: ServiceContext, projectId: string) {
  const rows = ctx.db
    .query<TagRow, [string]>(
      `SELECT t.id, t.name, t.color, t.is_default,
              (SELECT COUNT(*) FROM document_tags dt WHERE dt.tag_id = t.id) AS document_count
       FROM tags t WHERE t.project_id = ? ORDER BY t.is_default DESC, t.name, t.id`,
    )
    .all(projectId);
  const plain = (r: TagRow): TagView => ({ id: r.id, name: r.name, color: r.color, documentCount: r.document_count });
  return {
    tags: rows.map((r) => ({ id: r.id, name: r.name, color: r.color, isDefault: r.is_default === 1, documentCount: r.document_count })),
    defaultTags: rows.filter((r) => r.is_default === 1).map(plain),
    customTags: rows.filter((r) => r.is_default !== 1).map(plain),
    totalCount: rows.length,
  };
}
