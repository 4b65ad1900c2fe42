import { ApiError } from "../core/errors.ts";
import type { ServiceContext } from "../core/context.ts";
import type { ScanStatus } from "./limits.ts";

/** A scan_jobs row (001 + 002 columns). */
export interface ScanJobRow {
  id: string;
  project_id: string;
  status: ScanStatus;
  idempotency_key: string | null;
  manifest: string;
  total_size_bytes: number;
  user_context: string | null;
  total_files: number;
  completed_files: number;
  failed_files: number;
  estimated_micro: number;
  reserved_micro: number;
  reservation_id: string | null;
  actual_micro: number;
  credit_adjustment_micro: number;
  adjustment_message: string;
  error_message: string | null;
  skipped: string;
  attempts: number;
  upload_expires_at: string;
  created_at: string;
  confirmed_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  committed_at: string | null;
  uploaded_at: string | null;
  upload_bytes: number | null;
  bytes_processed: number;
  llm_tokens: number;
  cost_by_extension: string;
}

/** One file of the stored manifest. */
export interface ManifestFile {
  filename: string;
  relativePath: string;
  sizeBytes: number;
  /** lower-case hex */
  contentHash: string;
}

export function getJobRow(ctx: ServiceContext, jobId: string): ScanJobRow | null {
  return ctx.db.query<ScanJobRow, [string]>("SELECT * FROM scan_jobs WHERE id = ?").get(jobId);
}

/** The job, which must belong to the key's project: 404 `Job not found`, 403 `Access denied` (spec Errors). */
export function loadJob(ctx: ServiceContext, projectId: string, jobId: string): ScanJobRow {
  const job = getJobRow(ctx, jobId);
  if (!job) throw new ApiError(404, "Job not found");
  if (job.project_id !== projectId) throw new ApiError(403, "Access denied");
  return job;
}

/** 409 for confirm, cancel and upload on a job that is no longer PENDING_UPLOAD (spec rule 1). */
export function notAwaitingUpload(status: ScanStatus): ApiError {
  return new ApiError(409, "Job is not awaiting upload", {
    message: `The job is ${status}; only a PENDING_UPLOAD job accepts an upload, a confirm or a cancel.`,
    currentStatus: status,
  });
}

export function parseManifest(job: Pick<ScanJobRow, "manifest">): ManifestFile[] {
  return JSON.parse(job.manifest) as ManifestFile[];
}
