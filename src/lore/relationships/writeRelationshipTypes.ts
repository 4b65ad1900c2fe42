import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { LIMITS, Problems } from "../validate/fields.ts";
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

interface TypeRow {
  id: string;
  key: string | null;
  name: string;
  description: string | null;
  color: string;
  is_symmetric: number;
  inverse_type_id: string | null;
  conflicts_with_built_in: string;
  conflicts_with_custom: string;
}

function checkCustomIds(ctx: ServiceContext, projectId: string, p: Problems, path: string, ids: string[]): void {
  ids.forEach((id, i) => {
    if (!ctx.db.query("SELECT 1 FROM relationship_types WHERE id = ? AND project_id = ?").get(id, projectId)) {
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
  const clash = ctx.db
    .query<{ id: string }, [string, string]>("SELECT id FROM relationship_types WHERE project_id = ? AND name = ?")
    .get(projectId, name!);
  if (clash && clash.id !== base?.id) throw new ApiError(409, "Relationship type already exists", { details: [`name: '${name}' is taken`] });
  return { key, name: name!, color: color!, description, isSymmetric, inverseTypeId, builtIn, custom };
}

export function createRelationshipType(ctx: ServiceContext, projectId: string, input: RelationshipTypeInput): { id: string } {
  const n = normalise(ctx, projectId, input);
  const id = newId("rtype");
  const now = nowIso(ctx);
  ctx.db
    .query(
      `INSERT INTO relationship_types (id, project_id, key, name, description, color, is_symmetric, inverse_type_id,
         conflicts_with_built_in, conflicts_with_custom, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, projectId, n.key, n.name, n.description, n.color, n.isSymmetric ? 1 : 0, n.inverseTypeId, JSON.stringify(n.builtIn), JSON.stringify(n.custom), now, now);
  return { id };
}

export function updateRelationshipType(ctx: ServiceContext, projectId: string, id: string, input: RelationshipTypeInput): { id: string } {
  const base = ctx.db.query<TypeRow, [string, string]>("SELECT * FROM relationship_types WHERE id = ? AND project_id = ?").get(id, projectId);
  if (!base) throw notFound("Relationship type");
  const n = normalise(ctx, projectId, input, base);
  ctx.db
    .query(
      `UPDATE relationship_types SET key = ?, name = ?, description = ?, color = ?, is_symmetric = ?, inverse_type_id = ?,
         conflicts_with_built_in = ?, conflicts_with_custom = ?, updated_at = ? WHERE id = ?`,
    )
    .run(n.key, n.name, n.description, n.color, n.isSymmetric ? 1 : 0, n.inverseTypeId, JSON.stringify(n.builtIn), JSON.stringify(n.custom), nowIso(ctx), id);
  return { id };
}

export function deleteRelationshipType(ctx: ServiceContext, projectId: string, id: string): void {
  const r = ctx.db.query("DELETE FROM relationship_types WHERE id = ? AND project_id = ?").run(id, projectId);
  if (r.changes === 0) throw notFound("Relationship type");
}
