import { ApiError } from "../core/errors.ts";
import type { ServiceContext } from "../core/context.ts";
import type { ScanStatus } from "./limits.ts";
import { getScanJob, type ScanJobRow } from "./scanJobStore.ts";

export type { ScanJobRow };

/** One file of the stored manifest. */
export interface ManifestFile {
  filename: string;
  relativePath: string;
  sizeBytes: number;
  /** lower-case hex */
  contentHash: string;
}

/** The job, which must belong to the key's project: 404 `Job not found`, 403 `Access denied` (spec Errors). */
export function loadJob(ctx: ServiceContext, projectId: string, jobId: string): ScanJobRow {
  const job = getScanJob(ctx.db, jobId);
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
