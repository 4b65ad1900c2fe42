import { newId } from "../core/ids.ts";
import { nowIso } from "../core/context.ts";
import { insufficientCredits } from "../credits/insufficientCredits.ts";
import { microToCredits } from "../credits/prices.ts";
import { writeTx } from "../db/openDatabase.ts";
import { estimateScan } from "./estimate.ts";
import { SCANNER_LIMITS, type ScanStatus } from "./limits.ts";
import { validateSubmission } from "./manifest.ts";
import type { ScannerContext } from "../core/context.ts";
import type { ScanJobRow } from "./scanJobRow.ts";
import { findScanJobByKey, insertScanJob } from "./scanJobStore.ts";
import { signedUploadUrl } from "./uploadSignature.ts";

export interface SubmitResponse {
  jobId: string;
  status: ScanStatus;
  uploadUrl: string;
  expiresIn: number;
  totalFiles: number;
  estimatedCredits: number;
  deduplicated?: true;
}

/**
 * The upload URL for a job: valid for 1800 s (spec expiresIn), never past the
 * job's 45-minute upload window; a job no longer awaiting upload gets an
 * already-expired URL (expiresIn 0) — uploading to it is 409 anyway.
 */
function uploadUrlFor(ctx: ScannerContext, job: Pick<ScanJobRow, "id" | "status" | "upload_expires_at">): { uploadUrl: string; expiresIn: number } {
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const windowEnd = Math.floor(new Date(job.upload_expires_at).getTime() / 1000);
  const expires = job.status === "PENDING_UPLOAD" ? Math.max(now, Math.min(now + SCANNER_LIMITS.uploadUrlSeconds, windowEnd)) : now;
  return { uploadUrl: signedUploadUrl(ctx.db, ctx.config.publicUrl, job.id, expires), expiresIn: expires - now };
}

function response(ctx: ScannerContext, job: ScanJobRow): SubmitResponse {
  return {
    jobId: job.id,
    status: job.status,
    ...uploadUrlFor(ctx, job),
    totalFiles: job.total_files,
    // spec: estimatedCredits is the reserved amount once confirmed, the estimate before.
    estimatedCredits: microToCredits(job.confirmed_at ? job.reserved_micro : job.estimated_micro),
  };
}

function findByKey(ctx: ScannerContext, projectId: string, key: string): ScanJobRow | null {
  return findScanJobByKey(ctx.db, projectId, key);
}

/**
 * POST /scanner/submit-archive: validates the manifest, plans the reservation
 * (402 if the balance cannot cover it; nothing is charged yet) and creates a
 * PENDING_UPLOAD job with a signed upload URL. A known idempotencyKey returns
 * that job (`deduplicated: true`) whatever its state, before any balance check.
 */
export function submitArchive(ctx: ScannerContext, projectId: string, body: unknown): SubmitResponse {
  const sub = validateSubmission(body);
  if (sub.idempotencyKey) {
    const existing = findByKey(ctx, projectId, sub.idempotencyKey);
    if (existing) return { ...response(ctx, existing), deduplicated: true };
  }
  const est = estimateScan(
    ctx,
    projectId,
    sub.files.map((f) => ({ filename: f.relativePath, sizeBytes: f.sizeBytes })),
  );
  if (est.availableMicro < est.reservedMicro) throw insufficientCredits(est.reservedMicro, est.availableMicro);
  const now = ctx.clock.now();
  const id = newId("scan");
  const created = writeTx(ctx.db, () => {
    // Two submits with one key racing: the second finds the first's row here.
    if (sub.idempotencyKey) {
      const existing = findByKey(ctx, projectId, sub.idempotencyKey);
      if (existing) return { job: existing, deduplicated: true };
    }
    const job = insertScanJob(ctx.db, {
      id,
      project_id: projectId,
      idempotency_key: sub.idempotencyKey,
      manifest: JSON.stringify(sub.files),
      total_size_bytes: sub.totalSizeBytes,
      user_context: sub.userContext,
      total_files: sub.files.length,
      estimated_micro: est.estimatedMicro,
      reserved_micro: est.reservedMicro,
      upload_expires_at: new Date(now.getTime() + SCANNER_LIMITS.uploadWindowMs).toISOString(),
      created_at: nowIso(ctx),
    });
    return { job, deduplicated: false };
  });
  const r = response(ctx, created.job);
  return created.deduplicated ? { ...r, deduplicated: true } : r;
}
