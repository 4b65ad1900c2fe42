import type { ServiceContext } from "../../core/context.ts";
import { ApiError } from "../../core/errors.ts";
import { importPack, parsePackText } from "../../packs/importPack.ts";
import { exportPack, serializePack } from "../../packs/exportPack.ts";
import { getProject } from "../../projects/projectService.ts";
import type { ImportResult, PackFormat } from "../../packs/types.ts";
import { updatedStamps, type ProjectTable } from "../studioReadStore.ts";

const TABLES: Record<keyof ImportResult["ids"], ProjectTable> = {
  minds: "entity_minds",
  documents: "documents",
  locations: "locations",
  relationshipTypes: "relationship_types",
  relationships: "relationships",
  tags: "tags",
  events: "events",
};

type Change = "create" | "update" | "unchanged";

/** Thrown inside the dry run's transaction to roll it back, carrying what the import did. */
class RolledBack extends Error {
  constructor(readonly changes: Record<string, Record<Change, string[]>>) {
    super("dry run");
  }
}

/**
 * Imports a pack's text into a project; with `dryRun` the very same import
 * runs inside a transaction that is rolled back, and what it would create,
 * update or leave unchanged is reported per section (problems are the same
 * 400 `Invalid lore pack` either way).
 */
export function importPackText(ctx: ServiceContext, projectId: string, input: { text: string; fileName: string; dryRun?: boolean }) {
  getProject(ctx, projectId);
  const pack = parsePackText(input.text, input.fileName);
  if (!input.dryRun) return { dryRun: false, ...importPack(ctx, pack, { projectId }) };
  const before = new Map<string, string | null>();
  for (const [kind, table] of Object.entries(TABLES)) for (const [id, at] of updatedStamps(ctx.db, table, projectId)) before.set(`${kind}:${id}`, at);
  try {
    ctx.db.transaction(() => {
      const result = importPack(ctx, pack, { projectId });
      const changes: Record<string, Record<Change, string[]>> = {};
      for (const [kind, ids] of Object.entries(result.ids)) {
        const c: Record<Change, string[]> = { create: [], update: [], unchanged: [] };
        const now = updatedStamps(ctx.db, TABLES[kind as keyof ImportResult["ids"]], projectId);
        for (const [label, id] of Object.entries(ids)) {
          if (!before.has(`${kind}:${id}`)) c.create.push(label);
          else c[before.get(`${kind}:${id}`) === now.get(id) ? "unchanged" : "update"].push(label);
        }
        changes[kind] = c;
      }
      throw new RolledBack(changes);
    })();
  } catch (e) {
    if (e instanceof RolledBack) return { dryRun: true, projectId, changes: e.changes };
    throw e;
  }
  throw new ApiError(500, "dry run did not roll back");
}

export function exportPackText(ctx: ServiceContext, projectId: string, format: string): { text: string; fileName: string; type: string } {
  const project = getProject(ctx, projectId);
  if (format !== "yaml" && format !== "json") throw new ApiError(400, "Invalid request", { details: ["format: must be yaml or json"] });
  const text = serializePack(exportPack(ctx, projectId), format as PackFormat);
  const base = project.name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "lore";
  return { text, fileName: `${base}.${format}`, type: format === "json" ? "application/json" : "application/yaml" };
}
