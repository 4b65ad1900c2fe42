import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { LIMITS, Problems } from "../validate/fields.ts";

export interface LocationInput {
  key?: unknown;
  name?: unknown;
  description?: unknown;
  documentId?: unknown;
}

function checkDocument(ctx: ServiceContext, projectId: string, p: Problems, v: unknown): string | null | undefined {
  if (v === undefined || v === null) return v as null | undefined;
  if (typeof v !== "string" || !ctx.db.query("SELECT 1 FROM documents WHERE id = ? AND project_id = ?").get(v, projectId)) {
    p.add("documentId", "no such document in this project");
    return undefined;
  }
  return v;
}

export function createLocation(ctx: ServiceContext, projectId: string, input: LocationInput): { id: string } {
  const p = new Problems();
  const key = p.optionalString("key", input.key, LIMITS.key) ?? null;
  const name = p.requiredString("name", input.name, LIMITS.name);
  const description = p.optionalString("description", input.description, LIMITS.text) ?? null;
  const documentId = checkDocument(ctx, projectId, p, input.documentId) ?? null;
  p.throwIfAny();
  const id = newId("loc");
  const now = nowIso(ctx);
  ctx.db
    .query(
      `INSERT INTO locations (id, project_id, key, name, description, document_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, projectId, key, name!, description, documentId, now, now);
  return { id };
}

export function updateLocation(ctx: ServiceContext, projectId: string, id: string, input: LocationInput): { id: string } {
  const row = ctx.db
    .query<{ name: string; description: string | null; document_id: string | null }, [string, string]>(
      "SELECT name, description, document_id FROM locations WHERE id = ? AND project_id = ?",
    )
    .get(id, projectId);
  if (!row) throw notFound("Location");
  const p = new Problems();
  const name = input.name === undefined ? row.name : p.requiredString("name", input.name, LIMITS.name);
  const description = input.description === undefined ? row.description : (p.optionalString("description", input.description, LIMITS.text) ?? null);
  const documentId = input.documentId === undefined ? row.document_id : (checkDocument(ctx, projectId, p, input.documentId) ?? null);
  p.throwIfAny();
  ctx.db
    .query("UPDATE locations SET name = ?, description = ?, document_id = ?, updated_at = ? WHERE id = ?")
    .run(name!, description, documentId, nowIso(ctx), id);
  return { id };
}

export function deleteLocation(ctx: ServiceContext, projectId: string, id: string): void {
  const r = ctx.db.query("DELETE FROM locations WHERE id = ? AND project_id = ?").run(id, projectId);
  if (r.changes === 0) throw notFound("Location");
}
