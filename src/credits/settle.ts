import { invalidRequest } from "../core/errors.ts";
import type { ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { bucketSums, insertLedgerRow, isMicro, splitAllotmentFirst } from "./ledgerRows.ts";
import { closeReservation, loadOpenReservation } from "./reservations.ts";

/**
 * Ends a reservation with its actual cost: releases the hold, then charges
 * `actual` allotment-first as spend rows of kind = the reservation's purpose,
 * all in one transaction.
 *
 * - actual ≤ reserved: charges actual, `refunded` = reserved − actual.
 * - actual > reserved (the estimate was low): charges as much of `actual` as
 *   the balance holds once the hold is back, never driving a bucket below
 *   zero; the uncollected rest is written off (noted on the row).
 * - The allotment used is the reservation's period (the month it was made
 *   in), even if the month has turned: the operation ran against that month's
 *   allotment, and the new month's allotment is never touched by it.
 *
 * Settling a closed reservation is 409 (`currentStatus`), never a double charge.
 */
export function settle(ctx: ServiceContext, reservationId: string, actual: number): { charged: number; refunded: number } {
  if (!isMicro(actual)) throw invalidRequest("actual: must be a non-negative integer number of microcredits");
  return writeTx(ctx.db, () => {
    const res = loadOpenReservation(ctx, reservationId);
    closeReservation(ctx, res, "settled");
    const reserved = res.allotment_micro + res.topup_micro;
    const sums = bucketSums(ctx.db, res.team_id, res.period);
    const charged = Math.min(actual, Math.max(0, sums.allotment) + Math.max(0, sums.topUp));
    const split = splitAllotmentFirst(charged, sums.allotment);
    const note = charged < actual ? `${actual - charged} microcredits over the balance were not collected` : null;
    const row = { teamId: res.team_id, projectId: res.project_id, kind: res.purpose, period: res.period, reservationId: res.id, note };
    insertLedgerRow(ctx, { ...row, bucket: "allotment", amount: -split.allotment });
    insertLedgerRow(ctx, { ...row, bucket: "topup", amount: -split.topUp });
    return { charged, refunded: Math.max(0, reserved - charged) };
  });
}

/** Cancels a reservation: the whole hold goes back (the operation did not run). 409 when already closed. */
export function release(ctx: ServiceContext, reservationId: string): void {
  writeTx(ctx.db, () => {
    closeReservation(ctx, loadOpenReservation(ctx, reservationId), "released");
  });
}
