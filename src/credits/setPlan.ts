import { invalidRequest } from "../core/errors.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { getBalance, type Balance } from "./balance.ts";
import { bucketSums, ensureAllotmentGrant, insertLedgerRow, isMicro, KIND, setTeamPlan, teamPlan } from "./ledgerRows.ts";
import { heldAllotment } from "./reservationStore.ts";
import { currentPeriod } from "./period.ts";

/**
 * Changes the team's plan. Later months are granted the new allotment; this
 * month's remaining allotment becomes min(remaining, new) through a negative
 * `plan_adjustment` row (an upgrade adds nothing this month).
 *
 * "remaining" counts open holds as if released (they may be refunded), so
 * once they close the month ends at most at the new plan; the cut is capped
 * at what is free now so the bucket never goes negative.
 */
export function setPlan(ctx: ServiceContext, teamId: string, monthlyAllotment: number): Balance {
  if (!isMicro(monthlyAllotment)) throw invalidRequest("monthlyAllotment: must be a non-negative integer number of microcredits");
  const period = currentPeriod(ctx);
  writeTx(ctx.db, () => {
    const previous = teamPlan(ctx.db, teamId);
    ensureAllotmentGrant(ctx, teamId, period); // this month was granted under the old plan
    setTeamPlan(ctx.db, teamId, monthlyAllotment, nowIso(ctx));
    const free = bucketSums(ctx.db, teamId, period).allotment;
    const held = heldAllotment(ctx.db, teamId, period);
    const cut = Math.min(Math.max(0, free + held - monthlyAllotment), Math.max(0, free));
    insertLedgerRow(ctx, {
      teamId,
      bucket: "allotment",
      kind: KIND.planAdjustment,
      amount: -cut,
      period,
      note: `plan changed from ${previous} to ${monthlyAllotment} microcredits a month`,
    });
  });
  return getBalance(ctx, teamId);
}
