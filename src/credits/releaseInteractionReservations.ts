import type { ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { closeReservation } from "./reservations.ts";
import { openReservationsBefore } from "./reservationStore.ts";

/** Later than any created_at: "every open reservation", whatever the clock says. */
const END_OF_TIME = "9999-12-31T23:59:59.999Z";

/**
 * Start-up recovery: no generation survives a restart, so every interaction reservation still open
 * belongs to a request that died with the previous process (a crash, a kill -9). All are released
 * at once instead of waiting for the stale-reservation sweep. Scan reservations are left alone: a
 * scan job interrupted mid-run is re-queued and keeps its reservation until it settles.
 * Returns how many were released and the microcredits they held.
 */
export function releaseInteractionReservations(ctx: ServiceContext): { count: number; micro: number } {
  return writeTx(ctx.db, () => {
    const open = openReservationsBefore(ctx.db, END_OF_TIME, "interaction");
    for (const res of open) closeReservation(ctx, res, "released");
    return { count: open.length, micro: open.reduce((n, r) => n + r.allotment_micro + r.topup_micro, 0) };
  });
}
