import { readFile, stat } from "node:fs/promises";
import { basename, dirname, extname, resolve } from "node:path";
import type { ServiceContext } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { writeTx } from "../db/openDatabase.ts";
import { isPlainObject, Problems } from "../lore/validate/fields.ts";
import { createProject, getProject } from "../projects/projectService.ts";
import { checkShape } from "./checkShape.ts";
import { LORE_FILE_EXTENSIONS, readLoreFolder, type LoreFolder } from "./loreFolder.ts";
import { PackSchema } from "./packSchema.ts";
import { parsePackText } from "./parsePackText.ts";
import { loadSnapshot, newProjectSnapshot } from "./projectSnapshot.ts";
import { resolvePack, type Plan } from "./resolvePack.ts";
import { INVALID_PACK, type ImportOptions, type ImportResult } from "./types.ts";
import { writePlan } from "./writePlan.ts";

export { parsePackText } from "./parsePackText.ts";

/** Extra inputs of importPath's folder mode: problems found reading the files, and how to name an entry in a problem. */
interface Source {
  problems?: string[];
  relabel?: (problem: string) => string;
}

/**
 * Imports a lore pack (DESIGN.md "Lore pack format"): idempotent by key,
 * refused whole with every problem listed (400 Invalid lore pack), written
 * in one transaction. Without opts.projectId the pack's project is created.
 */
export function importPack(ctx: ServiceContext, pack: unknown, opts: ImportOptions = {}, source: Source = {}): ImportResult {
  if (opts.projectId) getProject(ctx, opts.projectId); // 404 Project not found
  // Validation runs inside the write transaction, so nothing can change between checking and writing.
  return writeTx(ctx.db, () => {
    const p = new Problems();
    let plan: Plan | null = null;
    if (!isPlainObject(pack)) {
      p.add("pack", `must be an object (a mapping with ${Object.keys(PackSchema.properties).join(", ")})`);
    } else {
      checkShape(PackSchema, pack, "", (path, reason) => p.add(path, reason));
      const snap = opts.projectId ? loadSnapshot(ctx, opts.projectId) : newProjectSnapshot();
      plan = resolvePack(pack, snap, p, { creatingProject: !opts.projectId });
    }
    if (!p.ok || source.problems?.length || !plan || !isPlainObject(pack)) {
      const details = inPackOrder(p.list);
      throw new ApiError(400, INVALID_PACK, { details: [...(source.problems ?? []), ...(source.relabel ? details.map(source.relabel) : details)] });
    }

    let projectId = opts.projectId;
    if (!projectId) {
      const project = pack.project as { name: string };
      projectId = createProject(ctx, { name: project.name, monthlyCredits: opts.monthlyCredits }).id;
      // Resolve again against the real project, so default tags resolve to their ids.
      const again = new Problems();
      plan = resolvePack(pack, loadSnapshot(ctx, projectId), again, { creatingProject: false });
      again.throwIfAny(INVALID_PACK);
    }
    const events = writePlan(ctx, projectId, plan);
    const ids = <T extends { label: string; id: string }>(items: T[]) => Object.fromEntries(items.map((i) => [i.label, i.id]));
    return {
      projectId,
      ids: {
        minds: ids(plan.minds),
        documents: ids(plan.documents),
        locations: ids(plan.locations),
        tags: ids(plan.tags),
        relationshipTypes: ids(plan.types),
        relationships: ids(plan.relationships),
        events,
      },
    };
  });
}

/**
 * Imports a pack file (.yaml, .yml, .json), or a folder of lore documents
 * (.md, .markdown, .txt with optional front matter; DESIGN.md "Lore
 * documents from files") or one such file. Lore files imported without a
 * project id create a project named after the folder (or file).
 */
export async function importPath(ctx: ServiceContext, path: string, opts: ImportOptions = {}): Promise<ImportResult> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new ApiError(400, INVALID_PACK, { details: [`${path}: no such file or folder`] });
  const ext = extname(path).toLowerCase();
  if (info.isDirectory() || (LORE_FILE_EXTENSIONS as readonly string[]).includes(ext)) {
    // one lore file imports like a folder holding just that file
    const folder = info.isDirectory() ? await readLoreFolder(path) : await readLoreFolder(dirname(path), [basename(path)]);
    return importFolder(ctx, folder, basename(resolve(path), info.isDirectory() ? "" : extname(path)), opts);
  }
  if (![".yaml", ".yml", ".json"].includes(ext)) {
    throw new ApiError(400, INVALID_PACK, {
      details: [`${path}: not a lore pack (.yaml, .yml, .json), a lore file (${LORE_FILE_EXTENSIONS.join(", ")}) or a folder of lore files`],
    });
  }
  return importPack(ctx, parsePackText(await readFile(path, "utf8"), basename(path)), opts);
}

/** Imports lore files as documents; `name` names the project when one is created. */
function importFolder(ctx: ServiceContext, folder: LoreFolder, name: string, opts: ImportOptions): ImportResult {
  const snap = opts.projectId ? loadSnapshot(ctx, getProject(ctx, opts.projectId).id) : null;
  // Front matter may name a location by its name, as an author would write it; packs use keys.
  if (snap) {
    for (const d of folder.pack.documents ?? []) {
      const where = d.location;
      if (typeof where !== "string" || snap.locations.byKey.has(where)) continue;
      const named = [...snap.locations.byKey].filter(([, l]) => l.name.toLowerCase() === where.toLowerCase());
      if (named.length === 1) d.location = named[0][0];
    }
  }
  if (!opts.projectId) folder.pack.project = { name };
  return importPack(ctx, folder.pack, opts, { problems: folder.problems, relabel: folder.relabel });
}

const SECTIONS = ["pack", ...Object.keys(PackSchema.properties)];

/** Problems in the order of the pack (section, then entry), each entry's problems together and in the order found. */
function inPackOrder(problems: string[]): string[] {
  const rank = (problem: string): [number, number] => {
    const m = /^([A-Za-z]+)(?:\[(\d+)\])?/.exec(problem);
    const section = m ? SECTIONS.indexOf(m[1]) : -1;
    return [section === -1 ? SECTIONS.length : section, m?.[2] ? Number(m[2]) : -1];
  };
  return problems
    .map((problem, i) => ({ problem, i, r: rank(problem) }))
    .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.i - b.i)
    .map((x) => x.problem);
}
