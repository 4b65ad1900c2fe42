import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { LIMITS, Problems } from "../validate/fields.ts";
import { deleteLocationRow, insertLocation, locationById, updateLocationRow } from "./locationStore.ts";
import { documentExists } from "../documents/documentStore.ts";

export interface LocationInput {
  key?: unknown;
  name?: unknown;
  description?: unknown;
  documentId?: unknown;
}

function checkDocument(ctx: ServiceContext, projectId: string, p: Problems, v: unknown): string | null | undefined {
  if (v === undefined || v === null) return v as null | undefined;
  if (typeof v !== "string" || !documentExists(ctx.db, projectId, v)) {
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
  insertLocation(ctx.db, projectId, id, { key, name: name!, description, documentId }, now);
  return { id };
}

export function updateLocation(ctx: ServiceContext, projectId: string, id: string, input: LocationInput): { id: string } {
  const row = locationById(ctx.db, projectId, id);
  if (!row) throw notFound("Location");
  const p = new Problems();
  const name = input.name === undefined ? row.name : p.requiredString("name", input.name, LIMITS.name);
  const description = input.description === undefined ? row.description : (p.optionalString("description", input.description, LIMITS.text) ?? null);
  const documentId = input.documentId === undefined ? row.documentId : (checkDocument(ctx, projectId, p, input.documentId) ?? null);
  p.throwIfAny();
  updateLocationRow(ctx.db, id, { key: row.key, name: name!, description, documentId }, nowIso(ctx));
  return { id };
}

export function deleteLocation(ctx: ServiceContext, projectId: string, id: string): void {
  if (!deleteLocationRow(ctx.db, projectId, id)) throw notFound("Location");
}
