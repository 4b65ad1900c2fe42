import { notFound } from "../core/errors.ts";
import type { ServiceContext } from "../core/context.ts";
import { bucketSums, ensureAllotmentGrant, teamPlan } from "./ledgerRows.ts";
import { currentPeriod } from "./period.ts";
import { teamOfProject } from "../projects/projectStore.ts";

/** A team's credits, in microcredits. `available` = allotmentRemaining + topUp, open holds already subtracted. */
export interface Balance {
  monthlyAllotment: number;
  allotmentRemaining: number;
  topUp: number;
  available: number;
}

/** The team's balance in the current period (grants this month's allotment first if it is the month's first use). */
export function getBalance(ctx: ServiceContext, teamId: string): Balance {
  const plan = teamPlan(ctx.db, teamId);
  const period = currentPeriod(ctx);
  ensureAllotmentGrant(ctx, teamId, period);
  return balanceIn(ctx, teamId, plan, period);
}

/** The balance of the team that owns the project (credits belong to the team). 404 `Project not found`. */
export function getProjectBalance(ctx: ServiceContext, projectId: string): Balance & { teamId: string } {
  const teamId = teamOfProject(ctx.db, projectId);
  if (!teamId) throw notFound("Project");
  return { ...getBalance(ctx, teamId), teamId };
}

export function balanceIn(ctx: ServiceContext, teamId: string, plan: number, period: string): Balance {
  // Both sums from one read snapshot, so a reservation committing between them cannot skew `available`.
  const { allotment, topUp } = ctx.db.transaction(() => bucketSums(ctx.db, teamId, period))();
  return { monthlyAllotment: plan, allotmentRemaining: allotment, topUp, available: allotment + topUp };
}
