import { withCacheSize, writeTx } from "../../db/openDatabase.ts";
import { SCANNER_LIMITS } from "../limits.ts";
import type { ScannerContext } from "../../core/context.ts";
import { failProcessing, processScanJob } from "./processScanJob.ts";
import { jobsWithStatus, queuedAfter, transition } from "../scanJobStore.ts";

/** The job's name (the scheduler's and `/admin/v1/jobs/{name}/run`'s); a confirmed upload kicks it. */
export const SCAN_WORKER_JOB = "scan-worker";

/** The SQLite page cache while scans run, in KiB (the connection's own is 32 MB). */
const SCAN_CACHE_KIB = 8000;

/**
 * Jobs left PROCESSING when a tick starts were interrupted (a crash or kill
 * mid-job): ticks of the worker never overlap and only the server runs it, so
 * nobody else can be working on them. Each goes back to QUEUED, or FAILED with
 * a full refund when it has used up its attempts (it may be what crashes the
 * process). Past the 24 h expiry the sweep fails them instead.
 */
export function recoverInterrupted(ctx: ScannerContext): { requeued: number; failed: number } {
  return writeTx(ctx.db, () => {
    const stuck = jobsWithStatus(ctx.db, ["PROCESSING"]);
    let requeued = 0;
    let failed = 0;
    for (const job of stuck) {
      if (job.attempts >= SCANNER_LIMITS.maxAttempts) {
        failProcessing(ctx, job, `Processing was interrupted ${job.attempts} times; the job was stopped and the reserved credits refunded.`);
        failed++;
      } else {
        transition(ctx.db, job.id, { from: "PROCESSING", to: "QUEUED" });
        requeued++;
      }
    }
    return { requeued, failed };
  });
}

/**
 * The scan-worker job's tick: recovers interrupted jobs, then runs the queued
 * ones one at a time, oldest confirmation first, until the queue is empty or
 * the scheduler stops. Jobs past their 24 h expiry are left to the sweep.
 */
export async function runScanWorker(ctx: ScannerContext, signal?: AbortSignal) {
  const recovered = recoverInterrupted(ctx);
  // Scans append rows and read back little: an 8 MB page cache scans as fast as 32 MB and keeps
  // a 200 MB archive's peak RSS ~24 MB lower (bench/scanner.ts: 281 against 305 MB).
  const outcomes = await withCacheSize(ctx.db, SCAN_CACHE_KIB, () => runQueued(ctx, signal));
  return { ...recovered, ...outcomes };
}

async function runQueued(ctx: ScannerContext, signal?: AbortSignal): Promise<Record<string, number>> {
  const outcomes: Record<string, number> = {};
  const tried = new Set<string>();
  while (!signal?.aborted) {
    const cutoff = new Date(ctx.clock.now().getTime() - SCANNER_LIMITS.confirmedExpiryMs).toISOString();
    const next = queuedAfter(ctx.db, cutoff, 50).find((id) => !tried.has(id));
    if (!next) break;
    // A job that errors back to QUEUED is retried at the next tick, not in a loop here.
    tried.add(next);
    const outcome = await processScanJob(ctx, next, signal);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return outcomes;
}
