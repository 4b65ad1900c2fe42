import { invalidRequest } from "../core/errors.ts";
import type { ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { getBalance, type Balance } from "./balance.ts";
import { insertLedgerRow, isMicro, KIND, teamPlan } from "./ledgerRows.ts";
import { TOPUP_PERIOD } from "./period.ts";

/** Adds `amount` microcredits of top-up (never expires). */
export function grantTopUp(ctx: ServiceContext, teamId: string, amount: number, note?: string): Balance {
  if (!isMicro(amount, 1)) throw invalidRequest("amount: must be a positive integer number of microcredits");
  writeTx(ctx.db, () => {
    teamPlan(ctx.db, teamId);
    insertLedgerRow(ctx, { teamId, bucket: "topup", kind: KIND.topUp, amount, period: TOPUP_PERIOD, note });
  });
  return getBalance(ctx, teamId);
}
