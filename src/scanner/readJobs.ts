import { microToCredits } from "../credits/prices.ts";
import { GarbageBudget } from "./GarbageBudget.ts";
import { firstChars } from "./extract/text.ts";
import { creditsText } from "./estimate.ts";
import { SCANNER_LIMITS, type ScanStatus } from "./limits.ts";
import type { ScannerContext } from "../core/context.ts";
import { loadJob, type ScanJobRow } from "./scanJobRow.ts";
import { listScanJobs } from "./scanJobStore.ts";
import { extractionPageReader } from "./scanExtractionStore.ts";
import { GroupTally, isEmptySelection, selects, type Selection } from "./reviewGroups.ts";

/** Optional per-group review of the detail form (docs/authoring-lore.md, the scanner): `?groups=true`, `?hide=…`. */
export interface DetailReviewOptions {
  /** Add `reviewGroups` (one entry per group with counts and ids). */
  groups?: boolean;
  /** Leave these extractions out of `extractions` (their groups keep their counts). */
  hide?: Selection;
}

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
  /** Review fields beyond the spec's: see ReviewInfo. */
  kind: string;
  group: string;
  reasons: Record<string, string>;
  speakers: string[];
  variants: { language: string; sourceFile: string }[];
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
  return listScanJobs(ctx.db, projectId, SCANNER_LIMITS.listedJobs).map(listItem);
}

/** What the credits look like before the job is settled (the stored message takes over once it is). */
function pendingAdjustmentMessage(j: ScanJobRow): string {
  if (j.adjustment_message) return j.adjustment_message;
  if (j.status === "PENDING_UPLOAD") return "No credits are charged until the upload is confirmed.";
  return `${creditsText(j.reserved_micro)} credits are reserved; after processing the reservation is settled to the actual cost and the rest refunded.`;
}

type JobDetailHead = Omit<JobDetail, "extractions" | "skippedContent">;

function detailHead(j: ScanJobRow): JobDetailHead {
  return {
    ...listItem(j),
    estimatedCredits: microToCredits(j.confirmed_at ? j.reserved_micro : j.estimated_micro),
    actualCredits: microToCredits(j.actual_micro),
    creditAdjustment: microToCredits(j.credit_adjustment_micro),
    adjustmentMessage: pendingAdjustmentMessage(j),
    errorMessage: j.error_message,
  };
}

/** The streamed detail collects after every so many characters sent (a small job's detail never reaches it). */
const DETAIL_GC_EVERY = 8 * 1024 * 1024;

/** Extractions read per query: bounds what one page of a large job holds in memory. */
const EXTRACTION_PAGE = 1_000;

/** The job's extractions in order, a page at a time (keyset on ordinal, id: no cursor stays open between pages). */
export function* extractionPages(ctx: ScannerContext, jobId: string): Generator<ExtractionView[]> {
  const page = extractionPageReader(ctx.db);
  let after = { ordinal: Number.MIN_SAFE_INTEGER, id: "" };
  for (;;) {
    const rows = page(jobId, after, EXTRACTION_PAGE);
    if (rows.length === 0) return;
    after = rows[rows.length - 1];
    yield rows.map((e) => ({
      id: e.id,
      title: e.title,
      tags: JSON.parse(e.tags) as string[],
      location: e.location,
      confidence: e.confidence,
      contentPreview: firstChars(e.preview, 200),
      sourceFiles: JSON.parse(e.source_files) as string[],
      ...reviewView(e.review, e.id),
    }));
    if (rows.length < EXTRACTION_PAGE) return;
  }
}

/** The review fields of an extraction (rows written before review metadata existed have none: kind "other", its own group). */
function reviewView(json: string | null, id: string): Pick<ExtractionView, "kind" | "group" | "reasons" | "speakers" | "variants"> {
  const r = json ? (JSON.parse(json) as Partial<ExtractionView>) : {};
  return { kind: r.kind ?? "other", group: r.group ?? id, reasons: r.reasons ?? {}, speakers: r.speakers ?? [], variants: r.variants ?? [] };
}

/** GET /scanner/jobs/{jobId}: detail form, every field of the spec (credits in credits), as one object. */
export function getJobDetail(ctx: ScannerContext, projectId: string, jobId: string): JobDetail {
  const j = loadJob(ctx, projectId, jobId);
  return {
    ...detailHead(j),
    extractions: [...extractionPages(ctx, j.id)].flat(),
    skippedContent: JSON.parse(j.skipped) as SkippedView[],
  };
}

/**
 * The same detail form as JSON text, streamed a page of extractions at a time. A 200 MB archive
 * can yield hundreds of thousands of extractions: built as one object that is a few hundred MB of
 * JSON, and several times that of heap, for a request a poller repeats. Throws (404) before the
 * first byte when the job is not the project's.
 */
export function jobDetailStream(ctx: ScannerContext, projectId: string, jobId: string, review: DetailReviewOptions = {}): ReadableStream<Uint8Array> {
  const j = loadJob(ctx, projectId, jobId);
  const hide = isEmptySelection(review.hide) ? null : review.hide!;
  const tally = review.groups ? new GroupTally() : null;
  const encoder = new TextEncoder();
  const head = JSON.stringify(detailHead(j));
  const skipped = JSON.stringify(JSON.parse(j.skipped) as SkippedView[]);
  const pages = extractionPages(ctx, j.id);
  // Every page's rows, strings and bytes are garbage once sent: a 290 MB detail peaked ~45 MB higher without this.
  const garbage = new GarbageBudget(DETAIL_GC_EVERY);
  let first = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`${head.slice(0, -1)},"extractions":[`));
    },
    pull(controller) {
      const next = pages.next();
      if (next.done) {
        const groups = tally ? `,"reviewGroups":${JSON.stringify(tally.views())},"knowledgeSuggestions":${JSON.stringify(tally.knowledge())}` : "";
        controller.enqueue(encoder.encode(`],"skippedContent":${skipped}${groups}}`));
        controller.close();
        return;
      }
      const shown = [];
      for (const e of next.value) {
        const hidden = hide !== null && selects(hide, e);
        tally?.add(e, hidden);
        if (!hidden) shown.push(JSON.stringify(e));
      }
      if (shown.length === 0) return;
      const body = shown.join(",");
      controller.enqueue(encoder.encode(first ? body : `,${body}`));
      first = false;
      garbage.spend(body.length);
    },
    cancel() {
      pages.return(undefined);
    },
  });
}
