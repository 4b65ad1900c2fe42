import { writeTx } from "../db/openDatabase.ts";
import type { ScannerContext } from "../core/context.ts";
import { loadJob, notAwaitingUpload } from "./scanJobRow.ts";
import { transition } from "./scanJobStore.ts";
import { withUploadWindow } from "./sweeps.ts";
import { deleteUpload } from "./uploadStore.ts";

export const CANCELLED_MESSAGE = "Job cancelled before confirmation. No credits were charged.";

/** DELETE /scanner/jobs/{jobId}: PENDING_UPLOAD → FAILED, nothing charged, upload deleted; 409 in any other state. */
export function cancelJob(ctx: ScannerContext, projectId: string, jobId: string) {
  const job = withUploadWindow(ctx, loadJob(ctx, projectId, jobId));
  if (job.status !== "PENDING_UPLOAD") throw notAwaitingUpload(job.status);
  writeTx(ctx.db, () => {
    const now = loadJob(ctx, projectId, jobId);
    if (now.status !== "PENDING_UPLOAD") throw notAwaitingUpload(now.status);
    transition(ctx.db, job.id, {
      from: "PENDING_UPLOAD",
      to: "FAILED",
      set: { error_message: CANCELLED_MESSAGE, adjustment_message: "No credits were charged: the job was cancelled before confirmation." },
    });
  });
  deleteUpload(ctx.config, job.id);
  return { jobId: job.id, status: "FAILED" as const, message: CANCELLED_MESSAGE };
}
