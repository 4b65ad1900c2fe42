import type { ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { ensureAllotmentGrant, teamsWithoutGrant } from "./ledgerRows.ts";
import { currentPeriod } from "./period.ts";

/**
 * Job body (monthly, 1st of the month UTC): grants the current period's
 * allotment to every team that lacks it. Idempotent — a second run in the
 * same month grants nothing, and a grant made lazily by a request counts.
 * Last month's leftover needs no expiry row: balances only sum the current period.
 */
export function resetMonthlyAllotments(ctx: ServiceContext): { granted: number } {
  const period = currentPeriod(ctx);
  return writeTx(ctx.db, () => {
    const teams = teamsWithoutGrant(ctx.db, period);
    let granted = 0;
    for (const t of teams) if (ensureAllotmentGrant(ctx, t.id, period)) granted++;
    return { granted };
  });
}
