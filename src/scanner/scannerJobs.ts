import type { Scheduler } from "../jobs/Scheduler.ts";
import type { AppContext } from "../app/App.ts";
import { runScanWorker } from "./worker/runScanWorker.ts";
import { runScannerSweeps } from "./sweeps.ts";

/** The scan worker and the scanner's expiry sweeps. */
export function registerScannerJobs(s: Scheduler, ctx: AppContext): void {
  // Every 2 s; at boot too, which is when jobs interrupted by a crash are re-queued.
  s.register({ name: "scan-worker", schedule: "*/2 * * * * *", runOnStart: true, run: (signal) => runScanWorker(ctx, signal) });
  // Upload windows (45 min), confirmed-job expiry (24 h, refunded) and leftover upload files.
  s.register({ name: "scan-expiry", schedule: "15 * * * * *", runOnStart: true, run: async () => runScannerSweeps(ctx) });
}
