import { rmSync } from "node:fs";
import { nowIso } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { SCANNER_LIMITS } from "./limits.ts";
import type { ScannerContext } from "../core/context.ts";
import type { ScanJobRow } from "./scanJobRow.ts";
import { refundReservation } from "./settlement.ts";
import { deleteUpload, listUploadFiles } from "./uploadStore.ts";

export const UPLOAD_WINDOW_EXPIRED = "Upload window expired";
export const CONFIRMED_JOB_EXPIRED =
  "Job expired: processing did not complete within 24 hours of confirmation; the reserved credits were refunded";

/** PENDING_UPLOAD → FAILED "Upload window expired" (DESIGN.md: 45 min after creation), upload deleted. Nothing was charged. */
export function failUnconfirmed(ctx: ScannerContext, jobId: string): boolean {
  const r = ctx.db
    .query(
      `UPDATE scan_jobs SET status = 'FAILED', error_message = ?, adjustment_message = 'No credits were charged: the upload was never confirmed.'
       WHERE id = ? AND status = 'PENDING_UPLOAD'`,
    )
    .run(UPLOAD_WINDOW_EXPIRED, jobId);
  deleteUpload(ctx.config, jobId);
  return r.changes > 0;
}

/** The job, with its upload window enforced now rather than at the next sweep. */
export function withUploadWindow(ctx: ScannerContext, job: ScanJobRow): ScanJobRow {
  if (job.status !== "PENDING_UPLOAD" || new Date(job.upload_expires_at).getTime() > ctx.clock.now().getTime()) return job;
  failUnconfirmed(ctx, job.id);
  return { ...job, status: "FAILED", error_message: UPLOAD_WINDOW_EXPIRED };
}

/** Every unconfirmed job past its upload window. */
export function expireUploadWindows(ctx: ScannerContext): number {
  const due = ctx.db
    .query<{ id: string }, [string]>("SELECT id FROM scan_jobs WHERE status = 'PENDING_UPLOAD' AND upload_expires_at <= ?")
    .all(nowIso(ctx));
  let n = 0;
  for (const { id } of due) if (failUnconfirmed(ctx, id)) n++;
  return n;
}

/**
 * Confirmed jobs (QUEUED or PROCESSING) not completed 24 h after confirm →
 * FAILED with the whole reservation refunded (spec rule 2). A worker still
 * busy with one notices at its next progress write and stops.
 */
export function expireConfirmedJobs(ctx: ScannerContext): number {
  const cutoff = new Date(ctx.clock.now().getTime() - SCANNER_LIMITS.confirmedExpiryMs).toISOString();
  const due = ctx.db
    .query<ScanJobRow, [string]>("SELECT * FROM scan_jobs WHERE status IN ('QUEUED', 'PROCESSING') AND confirmed_at <= ?")
    .all(cutoff);
  let n = 0;
  for (const job of due) {
    const done = writeTx(ctx.db, () => {
      const now = ctx.db.query<{ status: string }, [string]>("SELECT status FROM scan_jobs WHERE id = ?").get(job.id);
      if (!now || (now.status !== "QUEUED" && now.status !== "PROCESSING")) return false;
      const refund = refundReservation(ctx, job);
      ctx.db
        .query(
          `UPDATE scan_jobs SET status = 'FAILED', error_message = ?, completed_at = ?, actual_micro = 0,
             credit_adjustment_micro = ?, adjustment_message = ? WHERE id = ?`,
        )
        .run(CONFIRMED_JOB_EXPIRED, nowIso(ctx), refund.refundedMicro, refund.message, job.id);
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
  const live = new Set(
    ctx.db
      .query<{ id: string }, []>("SELECT id FROM scan_jobs WHERE status IN ('PENDING_UPLOAD', 'QUEUED', 'PROCESSING')")
      .all()
      .map((r) => r.id),
  );
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
