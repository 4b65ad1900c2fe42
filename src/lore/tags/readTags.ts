import type { ServiceContext } from "../../core/context.ts";
import { tagsWithDocumentCounts } from "./tagStore.ts";

export interface TagView {
  id: string;
  name: string;
  color: string | null;
  isDefault?: boolean;
  documentCount: number;
}

type TagRow = ReturnType<typeof tagsWithDocumentCounts>[number];

/** GET /lore/tags: all tags (with isDefault), and the default/custom split (without it). */
export function readTags(ctx: ServiceContext, projectId: string) {
  const rows = tagsWithDocumentCounts(ctx.db, projectId);
  const plain = (r: TagRow): TagView => ({ id: r.id, name: r.name, color: r.color, documentCount: r.document_count });
  return {
    tags: rows.map((r) => ({ id: r.id, name: r.name, color: r.color, isDefault: r.is_default === 1, documentCount: r.document_count })),
    defaultTags: rows.filter((r) => r.is_default === 1).map(plain),
    customTags: rows.filter((r) => r.is_default !== 1).map(plain),
    totalCount: rows.length,
  };
}
