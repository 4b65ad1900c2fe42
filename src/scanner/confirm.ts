import { ApiError, invalidRequest } from "../core/errors.ts";
import { nowIso } from "../core/context.ts";
import { reserve } from "../credits/ledger.ts";
import { microToCredits } from "../credits/prices.ts";
import { writeTx } from "../db/openDatabase.ts";
import { isReadableZip } from "./archive/index.ts";
import type { ScannerContext } from "../core/context.ts";
import { loadJob, notAwaitingUpload } from "./scanJobRow.ts";
import { transition } from "./scanJobStore.ts";
import { teamOfProject } from "../projects/projectStore.ts";
import { withUploadWindow } from "./sweeps.ts";
import { hasUpload, uploadPath } from "./uploadStore.ts";

/**
 * POST /scanner/submit-archive/confirm: PENDING_UPLOAD → QUEUED. The archive
 * must be in storage (400 `Archive not found in storage`) and be a readable
 * ZIP (400 `Invalid request`); the planned reservation is held (402 otherwise).
 * The state check and the hold are one transaction: two confirms racing
 * reserve once.
 */
export async function confirmUpload(ctx: ScannerContext, projectId: string, jobId: string) {
  const job = withUploadWindow(ctx, loadJob(ctx, projectId, jobId));
  if (job.status !== "PENDING_UPLOAD") throw notAwaitingUpload(job.status);
  if (!hasUpload(ctx.config, job.id)) {
    throw new ApiError(400, "Archive not found in storage", { message: "Upload the ZIP archive to uploadUrl (HTTP PUT) before confirming." });
  }
  if (!(await isReadableZip(uploadPath(ctx.config, job.id)))) {
    throw invalidRequest("archive: the uploaded file is not a readable ZIP archive; upload it again");
  }
  const teamId = teamOfProject(ctx.db, projectId)!;
  const reservedMicro = writeTx(ctx.db, () => {
    const now = loadJob(ctx, projectId, jobId);
    if (now.status !== "PENDING_UPLOAD") throw notAwaitingUpload(now.status);
    const { reservationId } = reserve(ctx, { teamId, projectId, amount: now.reserved_micro, purpose: "scan" });
    transition(ctx.db, job.id, {
      from: "PENDING_UPLOAD",
      to: "QUEUED",
      set: { confirmed_at: nowIso(ctx), reservation_id: reservationId, adjustment_message: "" },
    });
    return now.reserved_micro;
  });
  return { jobId: job.id, status: "QUEUED" as const, totalFiles: job.total_files, estimatedCredits: microToCredits(reservedMicro) };
}
