import type { ServiceContext } from "../../core/context.ts";

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

interface LocationRow {
  id: string;
  name: string;
  description: string | null;
  document_id: string | null;
  document_name: string | null;
  mind_count: number;
  created_at: string;
  updated_at: string;
}

/** GET /lore/locations: ordered by name. */
export function readLocations(ctx: ServiceContext, projectId: string): LocationView[] {
  return ctx.db
    .query<LocationRow, [string]>(
      `SELECT l.id, l.name, l.description, l.document_id, d.name AS document_name, l.created_at, l.updated_at,
              (SELECT COUNT(*) FROM entity_minds m WHERE m.location_id = l.id) AS mind_count
       FROM locations l LEFT JOIN documents d ON d.id = l.document_id
       WHERE l.project_id = ? ORDER BY l.name COLLATE NOCASE, l.name, l.id`,
    )
    .all(projectId)
    .map((r) => ({
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
