import type { Feature } from "../core/feature.ts";
import { scannerRoutes } from "./scannerRoutes.ts";
import { runScanWorker, SCAN_WORKER_JOB } from "./worker/runScanWorker.ts";
import { runScannerSweeps } from "./sweeps.ts";

/** The lore scanner: /v1/scanner, the scan worker and the scanner's expiry sweeps. */
export const scannerFeature: Feature = {
  name: "scanner",
  routes: (deps) => [{ mount: "v1", plugin: scannerRoutes(deps) }],
  jobs: (deps) => [
    // Every 2 s; at boot too, which is when jobs interrupted by a crash are re-queued.
    { name: SCAN_WORKER_JOB, schedule: "*/2 * * * * *", runOnStart: true, run: (signal) => runScanWorker(deps, signal) },
    // Upload windows (45 min), confirmed-job expiry (24 h, refunded) and leftover upload files.
    { name: "scan-expiry", schedule: "15 * * * * *", runOnStart: true, run: async () => runScannerSweeps(deps) },
  ],
};
