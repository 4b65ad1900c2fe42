import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { LIMITS, Problems } from "../validate/fields.ts";
import { deleteTypeRow, insertType, typeById, typeExists, typeIdByName, updateTypeRow, type TypeRow } from "./relationshipStore.ts";
import { BUILT_IN_TYPES } from "./builtInTypes.ts";

export interface RelationshipTypeInput {
  key?: unknown;
  name?: unknown;
  description?: unknown;
  color?: unknown;
  isSymmetric?: unknown;
  inverseTypeId?: unknown;
  conflictsWithBuiltIn?: unknown;
  conflictsWithCustom?: unknown;
}


function checkCustomIds(ctx: ServiceContext, projectId: string, p: Problems, path: string, ids: string[]): void {
  ids.forEach((id, i) => {
    if (!typeExists(ctx.db, projectId, id)) {
      p.add(`${path}[${i}]`, "no such custom relationship type in this project");
    }
  });
}

function normalise(ctx: ServiceContext, projectId: string, input: RelationshipTypeInput, base?: TypeRow) {
  const p = new Problems();
  const has = (k: keyof RelationshipTypeInput) => input[k] !== undefined || !base;
  const name = has("name") ? p.requiredString("name", input.name, LIMITS.name) : base!.name;
  const color = has("color") ? p.color("color", input.color, true) : base!.color;
  const description = has("description") ? (p.optionalString("description", input.description, LIMITS.text) ?? null) : base!.description;
  const isSymmetric = has("isSymmetric") ? (p.boolean("isSymmetric", input.isSymmetric) ?? false) : base!.is_symmetric === 1;
  let inverseTypeId = base?.inverse_type_id ?? null;
  if (input.inverseTypeId !== undefined) {
    inverseTypeId = (p.optionalString("inverseTypeId", input.inverseTypeId, LIMITS.key) ?? null) || null;
    if (inverseTypeId) checkCustomIds(ctx, projectId, p, "inverseTypeId", [inverseTypeId]);
  }
  let builtIn = base ? (JSON.parse(base.conflicts_with_built_in) as string[]) : [];
  if (input.conflictsWithBuiltIn !== undefined) {
    builtIn = p.stringList("conflictsWithBuiltIn", input.conflictsWithBuiltIn, 50, 50) ?? [];
    builtIn.forEach((t, i) => {
      if (!(BUILT_IN_TYPES as readonly string[]).includes(t)) p.add(`conflictsWithBuiltIn[${i}]`, `not a built-in type (${BUILT_IN_TYPES.join(", ")})`);
    });
  }
  let custom = base ? (JSON.parse(base.conflicts_with_custom) as string[]) : [];
  if (input.conflictsWithCustom !== undefined) {
    custom = p.stringList("conflictsWithCustom", input.conflictsWithCustom, 100, LIMITS.key) ?? [];
    checkCustomIds(ctx, projectId, p, "conflictsWithCustom", custom);
  }
  const key = input.key !== undefined ? (p.optionalString("key", input.key, LIMITS.key) ?? null) : (base?.key ?? null);
  p.throwIfAny();
  const clash = typeIdByName(ctx.db, projectId, name!);
  if (clash && clash !== base?.id) throw new ApiError(409, "Relationship type already exists", { details: [`name: '${name}' is taken`] });
  return { key, name: name!, color: color!, description, isSymmetric, inverseTypeId, builtIn, custom };
}

export function createRelationshipType(ctx: ServiceContext, projectId: string, input: RelationshipTypeInput): { id: string } {
  const n = normalise(ctx, projectId, input);
  const id = newId("rtype");
  const now = nowIso(ctx);
  insertType(ctx.db, projectId, id, typeValues(n), now);
  return { id };
}

export function updateRelationshipType(ctx: ServiceContext, projectId: string, id: string, input: RelationshipTypeInput): { id: string } {
  const base = typeById(ctx.db, projectId, id);
  if (!base) throw notFound("Relationship type");
  const n = normalise(ctx, projectId, input, base);
  updateTypeRow(ctx.db, id, typeValues(n), nowIso(ctx));
  return { id };
}

export function deleteRelationshipType(ctx: ServiceContext, projectId: string, id: string): void {
  if (!deleteTypeRow(ctx.db, projectId, id)) throw notFound("Relationship type");
}

function typeValues(n: ReturnType<typeof normalise>) {
  return { ...n, builtIn: JSON.stringify(n.builtIn), custom: JSON.stringify(n.custom) };
}
