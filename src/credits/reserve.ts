import { newId } from "../core/ids.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { insufficientCredits } from "./insufficientCredits.ts";
import { bucketSums, ensureAllotmentGrant, insertLedgerRow, KIND, splitAllotmentFirst, teamPlan } from "./ledgerRows.ts";
import { currentPeriod } from "./period.ts";
import { insertReservation } from "./reservationStore.ts";
import { checkProjectOfTeam, validateSpend } from "./validateSpend.ts";

export interface ReserveInput {
  teamId: string;
  projectId?: string;
  /** microcredits to hold (an upper bound of the operation's cost) */
  amount: number;
  /** what the hold is for ("interaction", "scan", ...); the settled spend rows carry it as their kind */
  purpose: string;
}

/**
 * Holds `amount` for an operation about to run: allotment first, then top-up,
 * as negative `hold` rows. Check and holds are one IMMEDIATE transaction, which
 * SQLite serialises across connections and processes: concurrent reservations
 * can never overdraw. 402 when the balance does not cover it.
 */
export function reserve(ctx: ServiceContext, input: ReserveInput): { reservationId: string; amount: number } {
  validateSpend("purpose", input.purpose, input.amount);
  const { teamId, projectId, amount, purpose } = input;
  const period = currentPeriod(ctx);
  return writeTx(ctx.db, () => {
    teamPlan(ctx.db, teamId);
    checkProjectOfTeam(ctx.db, teamId, projectId);
    ensureAllotmentGrant(ctx, teamId, period);
    const sums = bucketSums(ctx.db, teamId, period);
    const available = sums.allotment + sums.topUp;
    if (available < amount) throw insufficientCredits(amount, available);
    const split = splitAllotmentFirst(amount, sums.allotment);
    const id = newId("res");
    insertReservation(ctx.db, { id, teamId, projectId: projectId ?? null, purpose, allotment: split.allotment, topUp: split.topUp, period, at: nowIso(ctx) });
    const row = { teamId, projectId, kind: KIND.hold, period, reservationId: id, note: purpose };
    insertLedgerRow(ctx, { ...row, bucket: "allotment", amount: -split.allotment });
    insertLedgerRow(ctx, { ...row, bucket: "topup", amount: -split.topUp });
    return { reservationId: id, amount };
  });
}
