import type { ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { closeReservation, type ReservationRow } from "./reservations.ts";

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
    const stale = ctx.db
      .query<ReservationRow, [string, string | null, string | null]>(
        `SELECT * FROM credit_reservations WHERE status = 'open' AND created_at < ? AND (? IS NULL OR purpose = ?) ORDER BY created_at`,
      )
      .all(cutoff, opts.purpose ?? null, opts.purpose ?? null);
    for (const res of stale) closeReservation(ctx, res, "released");
    return stale.length;
  });
}
