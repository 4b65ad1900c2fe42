import { ApiError, notFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { DEFAULT_TAGS, MICRO_PER_CREDIT } from "./defaults.ts";

export interface Project {
  id: string;
  name: string;
  teamId: string;
  createdAt: string;
}

interface ProjectRow {
  id: string;
  name: string;
  team_id: string;
  created_at: string;
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
      const team = ctx.db.query("SELECT id FROM teams WHERE id = ?").get(teamId);
      if (!team) throw notFound("Team");
    } else {
      teamId = newId("team");
      const monthly = Math.round((input.monthlyCredits ?? 10_000) * MICRO_PER_CREDIT);
      ctx.db
        .query("INSERT INTO teams (id, name, monthly_allotment_micro, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
        .run(teamId, name, monthly, now, now);
    }
    const id = newId("proj");
    ctx.db
      .query("INSERT INTO projects (id, team_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
      .run(id, teamId, name, now, now);
    ctx.db.query("INSERT INTO project_settings (project_id, updated_at) VALUES (?, ?)").run(id, now);
    ctx.db.query("INSERT INTO rate_limits (project_id, updated_at) VALUES (?, ?)").run(id, now);
    const insTag = ctx.db.query(
      "INSERT INTO tags (id, project_id, name, color, is_default, created_at, updated_at) VALUES (?, ?, ?, NULL, 1, ?, ?)",
    );
    for (const tag of DEFAULT_TAGS) insTag.run(newId("tag"), id, tag, now, now);
    return { id, name, teamId: teamId!, createdAt: now };
  });
}

export function listProjects(ctx: ServiceContext): Project[] {
  return ctx.db
    .query<ProjectRow, []>("SELECT id, name, team_id, created_at FROM projects ORDER BY created_at, id")
    .all()
    .map(toProject);
}

export function findProject(ctx: ServiceContext, id: string): Project | null {
  const row = ctx.db
    .query<ProjectRow, [string]>("SELECT id, name, team_id, created_at FROM projects WHERE id = ?")
    .get(id);
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
  const rows = ctx.db
    .query<ProjectRow, [string]>("SELECT id, name, team_id, created_at FROM projects WHERE name = ?")
    .all(idOrName);
  if (rows.length === 1) return toProject(rows[0]);
  if (rows.length > 1) throw new ApiError(400, "Invalid request", { details: [`project name '${idOrName}' is ambiguous; use its id`] });
  throw notFound("Project");
}

export function renameProject(ctx: ServiceContext, id: string, name: string): Project {
  getProject(ctx, id);
  const trimmed = name?.trim();
  if (!trimmed) throw new ApiError(400, "Invalid request", { details: ["name: must be a non-empty string"] });
  ctx.db.query("UPDATE projects SET name = ?, updated_at = ? WHERE id = ?").run(trimmed, nowIso(ctx), id);
  return getProject(ctx, id);
}

export function deleteProject(ctx: ServiceContext, id: string): void {
  getProject(ctx, id);
  ctx.db.query("DELETE FROM projects WHERE id = ?").run(id);
}
