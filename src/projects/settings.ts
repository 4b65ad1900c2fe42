import { ApiError } from "../core/errors.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { getProject } from "./projectService.ts";
import { DEFAULT_SETTINGS } from "./defaults.ts";
import { setProjectName, settingsRow, upsertSettings } from "./projectStore.ts";

export interface ProjectSettings {
  projectName: string | null;
  longTermMemoryEnabled: boolean;
  maxSessionLength: number;
  maxSessionTokens: number;
  enhancedMemoryRetrieval: boolean;
}

export function readSettings(ctx: ServiceContext, projectId: string): ProjectSettings {
  const r = settingsRow(ctx.db, projectId);
  if (!r) throw new ApiError(404, "Project not found");
  // Unset columns read as the spec's defaults (the one home of them: projects/defaults.ts).
  return {
    projectName: r.name ?? null,
    longTermMemoryEnabled: r.ltm === null ? DEFAULT_SETTINGS.longTermMemoryEnabled : r.ltm === 1,
    maxSessionLength: r.msl ?? DEFAULT_SETTINGS.maxSessionLength,
    maxSessionTokens: r.mst ?? DEFAULT_SETTINGS.maxSessionTokens,
    enhancedMemoryRetrieval: r.emr === null ? DEFAULT_SETTINGS.enhancedMemoryRetrieval : r.emr === 1,
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
    upsertSettings(ctx.db, projectId, next, now);
    if (p.projectName !== undefined) setProjectName(ctx.db, projectId, p.projectName.trim(), now);
  }).immediate();
  return readSettings(ctx, projectId);
}
