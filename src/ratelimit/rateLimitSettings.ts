import { invalidRequest, notFound } from "../core/errors.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { DEFAULT_RATE_LIMITS } from "../projects/defaults.ts";
import type { RateLimits } from "./RateLimiter.ts";
import { rateLimitsRow, upsertRateLimits } from "./rateLimitStore.ts";
import { projectExists } from "../projects/projectStore.ts";

export const RATE_LIMIT_MIN = 1;
export const RATE_LIMIT_MAX = 100_000;

/** The project's limits, read from SQLite on every request (a CLI change applies to the next one); defaults when unset. */
export function readRateLimits(ctx: ServiceContext, projectId: string): RateLimits {
  const row = rateLimitsRow(ctx.db, projectId);
  if (row) return row;
  if (!projectExists(ctx.db, projectId)) throw notFound("Project");
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
    upsertRateLimits(ctx.db, projectId, next, nowIso(ctx));
    return next;
  });
}

function definedOnly(patch: Partial<RateLimits>): Partial<RateLimits> {
  const out: Partial<RateLimits> = {};
  if (patch.perPlayerPerMinute !== undefined) out.perPlayerPerMinute = patch.perPlayerPerMinute;
  if (patch.perProjectPerMinute !== undefined) out.perProjectPerMinute = patch.perProjectPerMinute;
  return out;
}
