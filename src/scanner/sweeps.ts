import { rmSync } from "node:fs";
import { nowIso } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { SCANNER_LIMITS } from "./limits.ts";
import type { ScannerContext } from "../core/context.ts";
import type { ScanJobRow } from "./scanJobRow.ts";
import { refundReservation } from "./settlement.ts";
import { deleteUpload, listUploadFiles } from "./uploadStore.ts";
import { LIVE_STATUSES, confirmedBefore, getScanJob, jobsWithStatus, transition, uploadWindowsClosedBy } from "./scanJobStore.ts";

export const UPLOAD_WINDOW_EXPIRED = "Upload window expired";
export const CONFIRMED_JOB_EXPIRED =
  "Job expired: processing did not complete within 24 hours of confirmation; the reserved credits were refunded";

/** PENDING_UPLOAD → FAILED "Upload window expired" (DESIGN.md: 45 min after creation), upload deleted. Nothing was charged. */
export function failUnconfirmed(ctx: ScannerContext, jobId: string): boolean {
  const r = transition(ctx.db, jobId, {
    from: "PENDING_UPLOAD",
    to: "FAILED",
    set: { error_message: UPLOAD_WINDOW_EXPIRED, adjustment_message: "No credits were charged: the upload was never confirmed." },
  });
  deleteUpload(ctx.config, jobId);
  return r !== null;
}

/** The job, with its upload window enforced now rather than at the next sweep. */
export function withUploadWindow(ctx: ScannerContext, job: ScanJobRow): ScanJobRow {
  if (job.status !== "PENDING_UPLOAD" || new Date(job.upload_expires_at).getTime() > ctx.clock.now().getTime()) return job;
  failUnconfirmed(ctx, job.id);
  return { ...job, status: "FAILED", error_message: UPLOAD_WINDOW_EXPIRED };
}

/** Every unconfirmed job past its upload window. */
export function expireUploadWindows(ctx: ScannerContext): number {
  let n = 0;
  for (const id of uploadWindowsClosedBy(ctx.db, nowIso(ctx))) if (failUnconfirmed(ctx, id)) n++;
  return n;
}

/**
 * Confirmed jobs (QUEUED or PROCESSING) not completed 24 h after confirm →
 * FAILED with the whole reservation refunded (spec rule 2). A worker still
 * busy with one notices at its next progress write and stops.
 */
export function expireConfirmedJobs(ctx: ScannerContext): number {
  const cutoff = new Date(ctx.clock.now().getTime() - SCANNER_LIMITS.confirmedExpiryMs).toISOString();
  const due = confirmedBefore(ctx.db, cutoff);
  let n = 0;
  for (const job of due) {
    const done = writeTx(ctx.db, () => {
      const now = getScanJob(ctx.db, job.id);
      if (!now || (now.status !== "QUEUED" && now.status !== "PROCESSING")) return false;
      const refund = refundReservation(ctx, job);
      transition(ctx.db, job.id, {
        from: now.status,
        to: "FAILED",
        set: {
          error_message: CONFIRMED_JOB_EXPIRED,
          completed_at: nowIso(ctx),
          actual_micro: 0,
          credit_adjustment_micro: refund.refundedMicro,
          adjustment_message: refund.message,
        },
      });
      return true;
    });
    if (done) {
      deleteUpload(ctx.config, job.id);
      n++;
    }
  }
  return n;
}

/** Archives and partial uploads of jobs that no longer need them (ended, or deleted with their project). */
export function removeOrphanUploads(ctx: ScannerContext): number {
  const live = new Set(jobsWithStatus(ctx.db, LIVE_STATUSES).map((r) => r.id));
  let n = 0;
  for (const f of listUploadFiles(ctx.config)) {
    if (live.has(f.jobId)) continue;
    rmSync(f.path, { force: true });
    n++;
  }
  return n;
}

/** The scan-expiry job's tick. */
export function runScannerSweeps(ctx: ScannerContext): { uploadWindowsExpired: number; confirmedJobsExpired: number; orphanUploadsRemoved: number } {
  return {
    uploadWindowsExpired: expireUploadWindows(ctx),
    confirmedJobsExpired: expireConfirmedJobs(ctx),
    orphanUploadsRemoved: removeOrphanUploads(ctx),
  };
}
