import type { ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { insufficientCredits } from "./insufficientCredits.ts";
import { bucketSums, ensureAllotmentGrant, insertLedgerRow, splitAllotmentFirst, teamPlan } from "./ledgerRows.ts";
import { currentPeriod } from "./period.ts";
import { checkProjectOfTeam, validateSpend } from "./validateSpend.ts";

export interface ChargeInput {
  teamId: string;
  projectId?: string;
  amount: number;
  /** the spend's ledger kind ("mind_build", ...) */
  kind: string;
  note?: string;
}

/** A direct spend of a known amount (no reservation), allotment first; 402 when it does not fit. */
export function charge(ctx: ServiceContext, input: ChargeInput): void {
  validateSpend("kind", input.kind, input.amount);
  const { teamId, projectId, amount, kind, note } = input;
  const period = currentPeriod(ctx);
  writeTx(ctx.db, () => {
    teamPlan(ctx.db, teamId);
    checkProjectOfTeam(ctx.db, teamId, projectId);
    ensureAllotmentGrant(ctx, teamId, period);
    const sums = bucketSums(ctx.db, teamId, period);
    if (sums.allotment + sums.topUp < amount) throw insufficientCredits(amount, sums.allotment + sums.topUp);
    const split = splitAllotmentFirst(amount, sums.allotment);
    const row = { teamId, projectId, kind, period, note };
    insertLedgerRow(ctx, { ...row, bucket: "allotment", amount: -split.allotment });
    insertLedgerRow(ctx, { ...row, bucket: "topup", amount: -split.topUp });
  });
}
