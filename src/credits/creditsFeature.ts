import type { Feature } from "../core/feature.ts";
import { expireStaleReservations, resetMonthlyAllotments } from "./ledger.ts";

/** Reservations older than this are released (a crash between reserve and settle). */
const STALE_RESERVATION_MS = 15 * 60_000;

/** The credit ledger's periodic jobs (its HTTP surface is part of the admin API). */
export const creditsFeature: Feature = {
  name: "credits",
  jobs: (deps) => [
    // On the 1st of each month (UTC), and at boot to catch up after downtime; idempotent.
    { name: "allotment-reset", schedule: "5 0 0 1 * *", runOnStart: true, run: async () => resetMonthlyAllotments(deps) },
    // Only interaction holds: a scan's hold lives until its job ends (the scanner's own sweep refunds it after 24 h).
    {
      name: "reservation-expiry",
      schedule: "0 */5 * * * *",
      run: async () => ({ released: expireStaleReservations(deps, STALE_RESERVATION_MS, { purpose: "interaction" }) }),
    },
  ],
};
