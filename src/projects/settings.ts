import { ApiError } from "../core/errors.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { getProject } from "./projectService.ts";

export interface ProjectSettings {
  projectName: string | null;
  longTermMemoryEnabled: boolean;
  maxSessionLength: number;
  maxSessionTokens: number;
  enhancedMemoryRetrieval: boolean;
}

export function readSettings(ctx: ServiceContext, projectId: string): ProjectSettings {
  const r = ctx.db
    .query<
      { name: string; ltm: number | null; msl: number | null; mst: number | null; emr: number | null },
      [string]
    >(
      `SELECT p.name, s.long_term_memory_enabled AS ltm, s.max_session_length AS msl,
              s.max_session_tokens AS mst, s.enhanced_memory_retrieval AS emr
       FROM projects p LEFT JOIN project_settings s ON s.project_id = p.id WHERE p.id = ?`,
    )
    .get(projectId);
  if (!r) throw new ApiError(404, "Project not found");
  return {
    projectName: r.name ?? null,
    longTermMemoryEnabled: (r.ltm ?? 1) === 1,
    maxSessionLength: r.msl ?? 20,
    maxSessionTokens: r.mst ?? 50000,
    enhancedMemoryRetrieval: (r.emr ?? 0) === 1,
  };
}

export type SettingsPatch = Partial<Omit<ProjectSettings, "projectName">> & { projectName?: string };

const BOOL_KEYS = ["longTermMemoryEnabled", "enhancedMemoryRetrieval"] as const;
const INT_KEYS = { maxSessionLength: [1, 1000], maxSessionTokens: [100, 10_000_000] } as const;

/** Validates a settings patch; returns every problem. */
export function validateSettingsPatch(patch: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [k, v] of Object.entries(patch)) {
    if ((BOOL_KEYS as readonly string[]).includes(k)) {
      if (typeof v !== "boolean") problems.push(`${k}: must be true or false`);
    } else if (k in INT_KEYS) {
      const [min, max] = INT_KEYS[k as keyof typeof INT_KEYS];
      if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) problems.push(`${k}: must be an integer from ${min} to ${max}`);
    } else if (k === "projectName") {
      if (typeof v !== "string" || !v.trim()) problems.push("projectName: must be a non-empty string");
    } else {
      problems.push(`${k}: unknown setting (known: projectName, longTermMemoryEnabled, maxSessionLength, maxSessionTokens, enhancedMemoryRetrieval)`);
    }
  }
  return problems;
}

export function updateSettings(ctx: ServiceContext, projectId: string, patch: Record<string, unknown>): ProjectSettings {
  getProject(ctx, projectId);
  const problems = validateSettingsPatch(patch);
  if (problems.length) throw new ApiError(400, "Invalid request", { details: problems });
  const p = patch as SettingsPatch;
  const now = nowIso(ctx);
  ctx.db.transaction(() => {
    const cur = readSettings(ctx, projectId);
    const next = { ...cur, ...p };
    ctx.db
      .query(
        `INSERT INTO project_settings (project_id, long_term_memory_enabled, max_session_length, max_session_tokens, enhanced_memory_retrieval, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(project_id) DO UPDATE SET long_term_memory_enabled = excluded.long_term_memory_enabled,
           max_session_length = excluded.max_session_length, max_session_tokens = excluded.max_session_tokens,
           enhanced_memory_retrieval = excluded.enhanced_memory_retrieval, updated_at = excluded.updated_at`,
      )
      .run(projectId, next.longTermMemoryEnabled ? 1 : 0, next.maxSessionLength, next.maxSessionTokens, next.enhancedMemoryRetrieval ? 1 : 0, now);
    if (p.projectName !== undefined) ctx.db.query("UPDATE projects SET name = ?, updated_at = ? WHERE id = ?").run(p.projectName.trim(), now, projectId);
  }).immediate();
  return readSettings(ctx, projectId);
}
