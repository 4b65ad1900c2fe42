import { microToCredits } from "../credits/prices.ts";
import { firstChars } from "./extract/text.ts";
import { creditsText } from "./estimate.ts";
import { SCANNER_LIMITS, type ScanStatus } from "./limits.ts";
import type { ScannerContext } from "./scannerContext.ts";
import { loadJob, type ScanJobRow } from "./scanJobRow.ts";

export interface JobListItem {
  jobId: string;
  status: ScanStatus;
  totalFiles: number;
  completedFiles: number;
  failedFiles: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  committedAt: string | null;
}

export interface ExtractionView {
  id: string;
  title: string;
  tags: string[];
  location: string | null;
  confidence: number;
  contentPreview: string;
  sourceFiles: string[];
}

export interface SkippedView {
  section: string;
  reason: string;
  sourceFile: string;
}

export interface JobDetail extends JobListItem {
  estimatedCredits: number;
  actualCredits: number;
  creditAdjustment: number;
  adjustmentMessage: string;
  errorMessage: string | null;
  extractions: ExtractionView[];
  skippedContent: SkippedView[];
}

function listItem(j: ScanJobRow): JobListItem {
  return {
    jobId: j.id,
    status: j.status,
    totalFiles: j.total_files,
    completedFiles: j.completed_files,
    failedFiles: j.failed_files,
    createdAt: j.created_at,
    startedAt: j.started_at,
    completedAt: j.completed_at,
    committedAt: j.committed_at,
  };
}

/** GET /scanner/jobs: the project's 50 most recent jobs, list form. */
export function listJobs(ctx: ScannerContext, projectId: string): JobListItem[] {
  return ctx.db
    .query<ScanJobRow, [string, number]>("SELECT * FROM scan_jobs WHERE project_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
    .all(projectId, SCANNER_LIMITS.listedJobs)
    .map(listItem);
}

/** What the credits look like before the job is settled (the stored message takes over once it is). */
function pendingAdjustmentMessage(j: ScanJobRow): string {
  if (j.adjustment_message) return j.adjustment_message;
  if (j.status === "PENDING_UPLOAD") return "No credits are charged until the upload is confirmed.";
  return `${creditsText(j.reserved_micro)} credits are reserved; after processing the reservation is settled to the actual cost and the rest refunded.`;
}

/** GET /scanner/jobs/{jobId}: detail form, every field of the spec (credits in credits). Polled for progress. */
export function getJobDetail(ctx: ScannerContext, projectId: string, jobId: string): JobDetail {
  const j = loadJob(ctx, projectId, jobId);
  const extractions = ctx.db
    .query<
      { id: string; title: string; tags: string; location: string | null; confidence: number; preview: string; source_files: string },
      [string]
    >(
      // substr keeps the row small: only the preview leaves SQLite (firstChars then trims by code point).
      "SELECT id, title, tags, location, confidence, substr(content, 1, 400) AS preview, source_files FROM scan_extractions WHERE job_id = ? ORDER BY ordinal",
    )
    .all(j.id)
    .map((e) => ({
      id: e.id,
      title: e.title,
      tags: JSON.parse(e.tags) as string[],
      location: e.location,
      confidence: e.confidence,
      contentPreview: firstChars(e.preview, 200),
      sourceFiles: JSON.parse(e.source_files) as string[],
    }));
  return {
    ...listItem(j),
    estimatedCredits: microToCredits(j.confirmed_at ? j.reserved_micro : j.estimated_micro),
    actualCredits: microToCredits(j.actual_micro),
    creditAdjustment: microToCredits(j.credit_adjustment_micro),
    adjustmentMessage: pendingAdjustmentMessage(j),
    errorMessage: j.error_message,
    extractions,
    skippedContent: JSON.parse(j.skipped) as SkippedView[],
  };
}
