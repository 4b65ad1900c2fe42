import { rmSync } from "node:fs";
import { ApiError, invalidRequest } from "../core/errors.ts";
import { nowIso } from "../core/context.ts";
import { SCANNER_LIMITS } from "./limits.ts";
import type { ScannerContext } from "../core/context.ts";
import { notAwaitingUpload } from "./scanJobRow.ts";
import { getScanJob, recordUpload } from "./scanJobStore.ts";
import { withUploadWindow } from "./sweeps.ts";
import { checkUploadSignature } from "./uploadSignature.ts";
import { commitUpload, receiveUpload, UploadTooLarge } from "./uploadStore.ts";

export interface UploadRequest {
  jobId: string;
  expires?: string;
  signature?: string;
  contentType: string | null;
  contentLength: string | null;
  body: ReadableStream<Uint8Array> | null;
}

function tooLarge(limit: number, declared: number): ApiError {
  return new ApiError(413, "Archive too large", {
    message:
      limit < SCANNER_LIMITS.maxArchiveBytes
        ? `The upload is larger than the declared totalSizeBytes (${declared} bytes).`
        : `The upload is larger than ${SCANNER_LIMITS.maxArchiveBytes} bytes (200 MB).`,
    maxBytes: limit,
  });
}

/**
 * PUT behind uploadUrl (no API key: the HMAC signature is the credential).
 * Checks, in order: signature (403 `Access denied`, also when expired),
 * Content-Type application/zip (400), the job (404) and its state (409 with
 * currentStatus), the size (413 `Archive too large` past the declared
 * totalSizeBytes or 200 MB — from Content-Length up front, else while
 * streaming). The body streams to a temp file that replaces any earlier upload
 * only once complete, and only if the job still awaits it.
 */
export async function acceptUpload(ctx: ScannerContext, req: UploadRequest): Promise<{ jobId: string; status: "PENDING_UPLOAD"; sizeBytes: number; message: string }> {
  const sig = checkUploadSignature(ctx.db, ctx.clock, req.jobId, req.expires, req.signature);
  if (sig !== "ok") {
    throw new ApiError(403, "Access denied", {
      message: sig === "expired" ? "The upload URL has expired; submit the archive again for a new one." : "The upload URL's signature is invalid.",
    });
  }
  const mediaType = (req.contentType ?? "").split(";")[0].trim().toLowerCase();
  if (mediaType !== "application/zip") throw invalidRequest("Content-Type: must be application/zip");
  const found = getScanJob(ctx.db, req.jobId);
  if (!found) throw new ApiError(404, "Job not found");
  const job = withUploadWindow(ctx, found);
  if (job.status !== "PENDING_UPLOAD") throw notAwaitingUpload(job.status);

  const limit = Math.min(job.total_size_bytes, SCANNER_LIMITS.maxArchiveBytes);
  if (req.contentLength !== null && /^\d+$/.test(req.contentLength) && Number(req.contentLength) > limit) {
    throw tooLarge(limit, job.total_size_bytes);
  }
  if (!req.body) throw invalidRequest("body: the ZIP archive is required");
  let received: { tempPath: string; bytes: number };
  try {
    received = await receiveUpload(ctx.config, job.id, req.body, limit);
  } catch (e) {
    if (e instanceof UploadTooLarge) throw tooLarge(limit, job.total_size_bytes);
    throw e;
  }
  if (received.bytes === 0) {
    rmSync(received.tempPath, { force: true });
    throw invalidRequest("body: the ZIP archive is required");
  }
  // Synchronous from the state check to the rename: a confirm cannot slip in between.
  const now = getScanJob(ctx.db, job.id);
  if (!now || now.status !== "PENDING_UPLOAD") {
    rmSync(received.tempPath, { force: true });
    throw notAwaitingUpload(now?.status ?? "FAILED");
  }
  commitUpload(ctx.config, job.id, received.tempPath);
  recordUpload(ctx.db, job.id, nowIso(ctx), received.bytes);
  return {
    jobId: job.id,
    status: "PENDING_UPLOAD",
    sizeBytes: received.bytes,
    message: "Archive received. Confirm the upload (POST /v1/scanner/submit-archive/confirm) to queue the scan.",
  };
}
