import { invalidRequest, notFound } from "../core/errors.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { DEFAULT_RATE_LIMITS } from "../projects/defaults.ts";
import type { RateLimits } from "./RateLimiter.ts";

export const RATE_LIMIT_MIN = 1;
export const RATE_LIMIT_MAX = 100_000;

interface Row {
  per_player_per_minute: number;
  per_project_per_minute: number;
}

/** The project's limits, read from SQLite on every request (a CLI change applies to the next one); defaults when unset. */
export function readRateLimits(ctx: ServiceContext, projectId: string): RateLimits {
  const row = ctx.db
    .query<Row, [string]>("SELECT per_player_per_minute, per_project_per_minute FROM rate_limits WHERE project_id = ?")
    .get(projectId);
  if (row) return { perPlayerPerMinute: row.per_player_per_minute, perProjectPerMinute: row.per_project_per_minute };
  if (!ctx.db.query("SELECT 1 FROM projects WHERE id = ?").get(projectId)) throw notFound("Project");
  return { ...DEFAULT_RATE_LIMITS };
}

/** Changes one or both limits (integers 1..100000, else 400 `Invalid request` with details); returns the limits now in force. */
export function setRateLimits(ctx: ServiceContext, projectId: string, patch: Partial<RateLimits>): RateLimits {
  const details: string[] = [];
  for (const field of ["perPlayerPerMinute", "perProjectPerMinute"] as const) {
    const v = patch[field];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isInteger(v) || v < RATE_LIMIT_MIN || v > RATE_LIMIT_MAX) {
      details.push(`${field}: must be an integer from ${RATE_LIMIT_MIN} to ${RATE_LIMIT_MAX}`);
    }
  }
  for (const field of Object.keys(patch ?? {})) {
    if (field !== "perPlayerPerMinute" && field !== "perProjectPerMinute") details.push(`${field}: unknown field`);
  }
  if (details.length) throw invalidRequest(...details);
  return writeTx(ctx.db, () => {
    const next = { ...readRateLimits(ctx, projectId), ...definedOnly(patch) };
    ctx.db
      .query(
        `INSERT INTO rate_limits (project_id, per_player_per_minute, per_project_per_minute, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (project_id) DO UPDATE SET per_player_per_minute = excluded.per_player_per_minute,
           per_project_per_minute = excluded.per_project_per_minute, updated_at = excluded.updated_at`,
      )
      .run(projectId, next.perPlayerPerMinute, next.perProjectPerMinute, nowIso(ctx));
    return next;
  });
}

function definedOnly(patch: Partial<RateLimits>): Partial<RateLimits> {
  const out: Partial<RateLimits> = {};
  if (patch.perPlayerPerMinute !== undefined) out.perPlayerPerMinute = patch.perPlayerPerMinute;
  if (patch.perProjectPerMinute !== undefined) out.perProjectPerMinute = patch.perProjectPerMinute;
  return out;
}
