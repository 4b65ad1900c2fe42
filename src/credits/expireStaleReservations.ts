import type { ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { closeReservation } from "./reservations.ts";
import { openReservationsBefore } from "./reservationStore.ts";

/**
 * Crash safety (a job body): releases every reservation still open after
 * `olderThanMs` — its operation died before settling. A late settle of one of
 * them then gets 409 and charges nothing. Returns how many were released.
 *
 * Operations differ in how long they legitimately hold (an interaction:
 * seconds; a scan: from confirm until processed, up to 24 h), so `purpose`
 * limits the sweep to one kind of reservation.
 */
export function expireStaleReservations(ctx: ServiceContext, olderThanMs: number, opts: { purpose?: string } = {}): number {
  const cutoff = new Date(ctx.clock.now().getTime() - olderThanMs).toISOString();
  return writeTx(ctx.db, () => {
    const stale = openReservationsBefore(ctx.db, cutoff, opts.purpose ?? null);
    for (const res of stale) closeReservation(ctx, res, "released");
    return stale.length;
  });
}
