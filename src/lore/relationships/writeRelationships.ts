import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { LIMITS, Problems } from "../validate/fields.ts";
import { BUILT_IN_TYPES, isBuiltInType } from "./builtInTypes.ts";
import { deleteRelationshipRow, insertRelationship, mindInProject, relationshipById, typeExists, updateRelationshipRow, type StoredRelationshipRow } from "./relationshipStore.ts";

export interface RelationshipInput {
  key?: unknown;
  fromEntityId?: unknown;
  toEntityId?: unknown;
  type?: unknown;
  customTypeId?: unknown;
  description?: unknown;
}

type RelRow = StoredRelationshipRow;

function normalise(ctx: ServiceContext, projectId: string, input: RelationshipInput, base?: RelRow) {
  const p = new Problems();
  const mind = (field: "fromEntityId" | "toEntityId", fallback?: string) => {
    const v = input[field];
    if (v === undefined && fallback) return fallback;
    if (typeof v !== "string" || !mindInProject(ctx.db, projectId, v)) {
      p.add(field, "no such Entity Mind in this project");
      return "";
    }
    return v;
  };
  const from = mind("fromEntityId", base?.fromId);
  const to = mind("toEntityId", base?.toId);
  if (from && from === to) p.add("toEntityId", "a relationship joins two different Entity Minds");
  let type = base?.type ?? null;
  let customTypeId = base?.customTypeId ?? null;
  if (input.type !== undefined || input.customTypeId !== undefined || !base) {
    type = (input.type as string | null | undefined) ?? null;
    customTypeId = (input.customTypeId as string | null | undefined) ?? null;
    if ((type === null) === (customTypeId === null)) p.add("type", "give exactly one of type (built-in) or customTypeId");
    else if (type !== null && !isBuiltInType(type)) p.add("type", `must be one of ${BUILT_IN_TYPES.join(", ")}`);
    else if (customTypeId !== null && (typeof customTypeId !== "string" || !typeExists(ctx.db, projectId, customTypeId))) {
      p.add("customTypeId", "no such custom relationship type in this project");
    }
  }
  const description = input.description !== undefined ? (p.optionalString("description", input.description, LIMITS.text) ?? null) : (base?.description ?? null);
  const key = input.key !== undefined ? (p.optionalString("key", input.key, LIMITS.key) ?? null) : (base?.key ?? null);
  p.throwIfAny();
  return { key, from, to, type, customTypeId, description };
}

export function createRelationship(ctx: ServiceContext, projectId: string, input: RelationshipInput): { id: string } {
  const n = normalise(ctx, projectId, input);
  const id = newId("rel");
  const now = nowIso(ctx);
  insertRelationship(ctx.db, projectId, id, n, now);
  return { id };
}

export function updateRelationship(ctx: ServiceContext, projectId: string, id: string, input: RelationshipInput): { id: string } {
  const base = relationshipById(ctx.db, projectId, id);
  if (!base) throw notFound("Relationship");
  const n = normalise(ctx, projectId, input, base);
  updateRelationshipRow(ctx.db, id, n, nowIso(ctx));
  return { id };
}

export function deleteRelationship(ctx: ServiceContext, projectId: string, id: string): void {
  if (!deleteRelationshipRow(ctx.db, projectId, id)) throw notFound("Relationship");
}
