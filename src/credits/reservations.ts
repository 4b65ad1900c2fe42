import { ApiError, notFound } from "../core/errors.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { insertLedgerRow, KIND } from "./ledgerRows.ts";
import { markReservationClosed, reservationById, type ReservationRow } from "./reservationStore.ts";

export type { ReservationRow };

/** The reservation, which must still be open: 404 when unknown, 409 (with currentStatus) when already settled or released. */
export function loadOpenReservation(ctx: ServiceContext, id: string): ReservationRow {
  const res = reservationById(ctx.db, id);
  if (!res) throw notFound("Reservation");
  if (res.status !== "open") {
    throw new ApiError(409, "Reservation already closed", {
      message: `Reservation ${id} is already ${res.status}.`,
      currentStatus: res.status,
    });
  }
  return res;
}

/**
 * Gives back the hold (positive `hold_release` rows mirroring the `hold` rows)
 * and marks the reservation closed. The allotment part goes back to the
 * reservation's own period: if the month has turned meanwhile, that allotment
 * has expired and the refund expires with it. Run inside a write transaction.
 */
export function closeReservation(ctx: ServiceContext, res: ReservationRow, status: "settled" | "released"): void {
  const row = { teamId: res.team_id, projectId: res.project_id, kind: KIND.holdRelease, period: res.period, reservationId: res.id, note: res.purpose };
  insertLedgerRow(ctx, { ...row, bucket: "allotment", amount: res.allotment_micro });
  insertLedgerRow(ctx, { ...row, bucket: "topup", amount: res.topup_micro });
  markReservationClosed(ctx.db, res.id, status, nowIso(ctx));
}
