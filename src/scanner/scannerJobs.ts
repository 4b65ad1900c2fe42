import type { Scheduler } from "../jobs/Scheduler.ts";
import type { AppContext } from "../app/App.ts";

/** The scan worker and the scanner's expiry sweeps. */
export function registerScannerJobs(_s: Scheduler, _ctx: AppContext): void {}
