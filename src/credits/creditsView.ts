import type { ServiceContext } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { getProject } from "../projects/projectService.ts";
import { getProjectBalance, grantTopUp, setPlan, type Balance } from "./ledger.ts";
import { creditsToMicro, microToCredits } from "./prices.ts";

export interface CreditsView {
  monthlyAllotment: number;
  allotmentRemaining: number;
  topUp: number;
  available: number;
}

/** A balance in credits (the CLI's and admin API's unit); the ledger keeps microcredits. */
export function toCredits(b: Balance): CreditsView {
  return {
    monthlyAllotment: microToCredits(b.monthlyAllotment),
    allotmentRemaining: microToCredits(b.allotmentRemaining),
    topUp: microToCredits(b.topUp),
    available: microToCredits(b.available),
  };
}

function positiveCredits(v: unknown, name: string, allowZero: boolean): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || (!allowZero && v === 0) || v > 1e12) {
    throw new ApiError(400, "Invalid request", { details: [`${name}: must be a number of credits ${allowZero ? "of 0 or more" : "above 0"}`] });
  }
  return creditsToMicro(v);
}

export function showCredits(ctx: ServiceContext, projectId: string): CreditsView {
  getProject(ctx, projectId);
  return toCredits(getProjectBalance(ctx, projectId));
}

/** Top-up credits to the project's team (never expire). */
export function grantCredits(ctx: ServiceContext, projectId: string, credits: unknown): CreditsView {
  const p = getProject(ctx, projectId);
  return toCredits(grantTopUp(ctx, p.teamId, positiveCredits(credits, "credits", false), "granted by an operator"));
}

/** The team's plan: monthly allotment; this month's remaining becomes min(remaining, N). */
export function changePlan(ctx: ServiceContext, projectId: string, monthly: unknown): CreditsView {
  const p = getProject(ctx, projectId);
  return toCredits(setPlan(ctx, p.teamId, positiveCredits(monthly, "monthly", true)));
}
