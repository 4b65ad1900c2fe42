import type { ServiceContext } from "../../core/context.ts";
import { locationsWithCounts } from "./locationStore.ts";

export interface LocationView {
  id: string;
  name: string;
  description: string | null;
  documentId: string | null;
  document: { id: string; name: string } | null;
  entityMindCount: number;
  createdAt: string;
  updatedAt: string;
}

/** GET /lore/locations: ordered by name. */
export function readLocations(ctx: ServiceContext, projectId: string): LocationView[] {
  return locationsWithCounts(ctx.db, projectId).map((r) => ({
      id: r.id,
      name: r.name,
      description: r.description,
      documentId: r.document_id,
      document: r.document_id ? { id: r.document_id, name: r.document_name ?? "" } : null,
      entityMindCount: r.mind_count,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }));
}
