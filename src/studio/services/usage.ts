import type { AppContext } from "../../core/context.ts";
import { ApiError } from "../../core/errors.ts";
import { microToCredits } from "../../credits/prices.ts";
import { getProject } from "../../projects/projectService.ts";
import type { UsageLog } from "../../ops/usageLog.ts";
import { interactionSpends, ledgerMovementRows, settledInteractionTimes } from "../studioReadStore.ts";

export const USAGE_RANGES = { "24h": { hours: 24, bucketMs: 3600_000 }, "7d": { hours: 168, bucketMs: 6 * 3600_000 }, "30d": { hours: 720, bucketMs: 24 * 3600_000 } } as const;
export type UsageRange = keyof typeof USAGE_RANGES;

export interface UsagePoint {
  /** bucket start, ISO */
  t: string;
  interactions: number;
  credits: number;
  promptTokens: number;
  completionTokens: number;
  /** mean over the bucket's sampled interactions; null when none */
  firstTokenMs: number | null;
  totalMs: number | null;
}

/**
 * Usage over time in fixed buckets. Interactions and credits come from the
 * ledger (durable); tokens and latency from this process's UsageLog (since
 * it started): `sampled` says how many interactions those cover.
 */
export function usageSeries(ctx: AppContext, usage: UsageLog, projectId: string, range: string) {
  getProject(ctx, projectId);
  const r = USAGE_RANGES[range as UsageRange];
  if (!r) throw new ApiError(400, "Invalid request", { details: [`range: must be one of ${Object.keys(USAGE_RANGES).join(", ")}`] });
  const end = Math.ceil(ctx.clock.now().getTime() / r.bucketMs) * r.bucketMs;
  const start = end - r.hours * 3600_000;
  const n = Math.round((end - start) / r.bucketMs);
  const points: (UsagePoint & { ttftSum: number; totalSum: number; sampled: number })[] = Array.from({ length: n }, (_, i) => ({
    t: new Date(start + i * r.bucketMs).toISOString(),
    interactions: 0,
    credits: 0,
    promptTokens: 0,
    completionTokens: 0,
    firstTokenMs: null,
    totalMs: null,
    ttftSum: 0,
    totalSum: 0,
    sampled: 0,
  }));
  const at = (iso: string | number) => Math.floor(((typeof iso === "number" ? iso : Date.parse(iso)) - start) / r.bucketMs);
  const startIso = new Date(start).toISOString();
  for (const createdAt of settledInteractionTimes(ctx.db, projectId, startIso)) {
    const p = points[at(createdAt)];
    if (p) p.interactions++;
  }
  for (const row of interactionSpends(ctx.db, projectId, startIso)) {
    const p = points[at(row.created_at)];
    if (p) p.credits -= row.amount_micro;
  }
  for (const s of usage.since(projectId, start)) {
    const p = points[at(s.at)];
    if (!p) continue;
    p.promptTokens += s.promptTokens;
    p.completionTokens += s.completionTokens;
    p.ttftSum += s.timeToFirstTokenMs;
    p.totalSum += s.totalMs;
    p.sampled++;
  }
  const series = points.map(({ ttftSum, totalSum, sampled, ...p }) => ({
    ...p,
    credits: microToCredits(p.credits),
    firstTokenMs: sampled ? Math.round(ttftSum / sampled) : null,
    totalMs: sampled ? Math.round(totalSum / sampled) : null,
  }));
  return { range, bucketSeconds: r.bucketMs / 1000, series, sampled: points.reduce((a, p) => a + p.sampled, 0) };
}

/** The ledger's recent movements that concern this project (its spends, and its team's grants). */
export function ledgerMovements(ctx: AppContext, projectId: string, limit: number) {
  const project = getProject(ctx, projectId);
  const rows = ledgerMovementRows(ctx.db, project.teamId, projectId, limit);
  return {
    movements: rows.map((r) => ({
      id: r.id,
      at: r.created_at,
      bucket: r.bucket,
      kind: r.kind,
      credits: microToCredits(r.amount_micro),
      period: r.period,
      note: r.note,
      scope: r.project_id ? ("project" as const) : ("team" as const),
    })),
  };
}
