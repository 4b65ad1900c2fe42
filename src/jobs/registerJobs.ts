import type { Scheduler } from "./Scheduler.ts";
import type { AppContext } from "../app/App.ts";
import type { RateLimiter } from "../ratelimit/RateLimiter.ts";
import { runIndexer } from "../lore/indexer/indexerJob.ts";
import { listProjects } from "../projects/projectService.ts";
import { expireStaleReservations, resetMonthlyAllotments } from "../credits/ledger.ts";
import { registerScannerJobs } from "../scanner/scannerJobs.ts";
import { purgeErasedMemories } from "../npc/memory/tombstones.ts";

/** Reservations older than this are released (a crash between reserve and settle). */
const STALE_RESERVATION_MS = 15 * 60_000;

/** Every background job of the server, by name (the admin API lists and triggers them). */
export function registerJobs(s: Scheduler, ctx: AppContext & { limiter: RateLimiter }): void {
  s.register({ name: "indexer", schedule: "*/2 * * * * *", runOnStart: true, run: (signal) => runIndexer(ctx, signal) });
  // Loads every project's chunk vectors into memory so no player waits for it (a no-op once loaded).
  s.register({
    name: "vector-cache-warm",
    schedule: "0 0 * * * *",
    runOnStart: true,
    run: async () => ({ rows: await ctx.vectors.warm(listProjects(ctx).map((p) => p.id)) }),
  });
  // On the 1st of each month (UTC), and at boot to catch up after downtime; idempotent.
  s.register({ name: "allotment-reset", schedule: "5 0 0 1 * *", runOnStart: true, run: async () => resetMonthlyAllotments(ctx) });
  // Only interaction holds: a scan's hold lives until its job ends (the scanner's own sweep refunds it after 24 h).
  s.register({
    name: "reservation-expiry",
    schedule: "0 */5 * * * *",
    run: async () => ({ released: expireStaleReservations(ctx, STALE_RESERVATION_MS, { purpose: "interaction" }) }),
  });
  s.register({ name: "rate-limit-prune", schedule: "30 * * * * *", run: async () => ctx.limiter.prune() });
  // Vectors of players erased from the CLI (which never writes LanceDB) are purged here.
  s.register({ name: "memory-purge", schedule: "0 * * * * *", runOnStart: true, run: (signal) => purgeErasedMemories(ctx, { signal }) });
  registerScannerJobs(s, ctx);
}
