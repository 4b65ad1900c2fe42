import { ApiError, notFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { DEFAULT_TAGS, MICRO_PER_CREDIT } from "./defaults.ts";
import { allProjects, deleteProjectRow, insertProject, insertTeam, projectById, projectsNamed, setProjectName, teamExists, type ProjectRow } from "./projectStore.ts";
import { insertRateLimitsRow } from "../ratelimit/rateLimitStore.ts";
import { insertDefaultTags } from "../lore/tags/tagStore.ts";

export interface Project {
  id: string;
  name: string;
  teamId: string;
  createdAt: string;
}

const toProject = (r: ProjectRow): Project => ({ id: r.id, name: r.name, teamId: r.team_id, createdAt: r.created_at });

export interface CreateProjectInput {
  name: string;
  /** existing team id; without it a new team named after the project is created */
  teamId?: string;
  /** monthly allotment of the new team's default plan, in credits */
  monthlyCredits?: number;
}

/** Creates a project with its default tags, settings and rate limits (and a team when none is given). */
export function createProject(ctx: ServiceContext, input: CreateProjectInput): Project {
  const name = input.name?.trim();
  if (!name) throw new ApiError(400, "Invalid request", { details: ["name: must be a non-empty string"] });
  if (name.length > 200) throw new ApiError(400, "Invalid request", { details: ["name: at most 200 characters"] });
  const now = nowIso(ctx);
  return writeTx(ctx.db, () => {
    let teamId = input.teamId;
    if (teamId) {
      if (!teamExists(ctx.db, teamId)) throw notFound("Team");
    } else {
      teamId = newId("team");
      const monthly = Math.round((input.monthlyCredits ?? 10_000) * MICRO_PER_CREDIT);
      insertTeam(ctx.db, { id: teamId, name, monthlyMicro: monthly, at: now });
    }
    const id = newId("proj");
    insertProject(ctx.db, { id, teamId, name, at: now });
    insertRateLimitsRow(ctx.db, id, now);
    insertDefaultTags(ctx.db, id, DEFAULT_TAGS.map((tag) => ({ id: newId("tag"), name: tag })), now);
    return { id, name, teamId: teamId!, createdAt: now };
  });
}

export function listProjects(ctx: ServiceContext): Project[] {
  return allProjects(ctx.db).map(toProject);
}

export function findProject(ctx: ServiceContext, id: string): Project | null {
  const row = projectById(ctx.db, id);
  return row ? toProject(row) : null;
}

export function getProject(ctx: ServiceContext, id: string): Project {
  const p = findProject(ctx, id);
  if (!p) throw notFound("Project");
  return p;
}

/** Resolves a project by id or, for the CLI's convenience, by exact name (if unique). */
export function resolveProject(ctx: ServiceContext, idOrName: string): Project {
  const byId = findProject(ctx, idOrName);
  if (byId) return byId;
  const rows = projectsNamed(ctx.db, idOrName);
  if (rows.length === 1) return toProject(rows[0]);
  if (rows.length > 1) throw new ApiError(400, "Invalid request", { details: [`project name '${idOrName}' is ambiguous; use its id`] });
  throw notFound("Project");
}

export function renameProject(ctx: ServiceContext, id: string, name: string): Project {
  getProject(ctx, id);
  const trimmed = name?.trim();
  if (!trimmed) throw new ApiError(400, "Invalid request", { details: ["name: must be a non-empty string"] });
  setProjectName(ctx.db, id, trimmed, nowIso(ctx));
  return getProject(ctx, id);
}

export function deleteProject(ctx: ServiceContext, id: string): void {
  getProject(ctx, id);
  deleteProjectRow(ctx.db, id);
}
