import { extname } from "node:path";
import { ApiError, invalidRequest } from "../../core/errors.ts";
import { LIMITS } from "../../lore/validate/fields.ts";
import { commitExtractions } from "../../scanner/commit.ts";
import type { ScannerContext } from "../../core/context.ts";
import { loadJob } from "../../scanner/scanJobRow.ts";
import { editExtractionRow, extractionsForReview, type ExtractionReviewRow } from "../../scanner/scanExtractionStore.ts";
import { documentExists } from "../../lore/documents/documentStore.ts";
import { extractionsOfGroup } from "../studioReadStore.ts";
import { REVIEW_KINDS, reviewFieldsOf, type ReviewFields } from "./reviewFields.ts";

type Row = ExtractionReviewRow;

export interface ReviewFilter {
  minConfidence?: number;
  tag?: string;
  /** source file extension without the dot, e.g. "json" */
  format?: string;
  sourceFile?: string;
  search?: string;
  /** one review group (an extraction's `group`) */
  group?: string;
  kind?: string;
}

export interface ReviewExtraction extends ReviewFields {
  id: string;
  title: string;
  tags: string[];
  location: string | null;
  confidence: number;
  content: string;
  sourceFiles: string[];
  formats: string[];
  documentId: string | null;
  /** the scanner's review fields (kind, group, reasons, speakers, variants) when it wrote them */
  review: Record<string, unknown> | null;
}

const view = (r: Row): ReviewExtraction => {
  const sourceFiles = JSON.parse(r.source_files) as string[];
  return {
    id: r.id,
    title: r.title,
    tags: JSON.parse(r.tags) as string[],
    location: r.location,
    confidence: r.confidence,
    content: r.content,
    sourceFiles,
    formats: [...new Set(sourceFiles.map((f) => extname(f).slice(1).toLowerCase()).filter(Boolean))],
    documentId: r.document_id,
    review: r.review ? (JSON.parse(r.review) as Record<string, unknown>) : null,
    ...reviewFieldsOf(r.review, r.id),
  };
};

function matches(e: ReviewExtraction, f: ReviewFilter): boolean {
  if (f.minConfidence !== undefined && e.confidence < f.minConfidence) return false;
  if (f.tag && !e.tags.includes(f.tag)) return false;
  if (f.format && !e.formats.includes(f.format.toLowerCase())) return false;
  if (f.sourceFile && !e.sourceFiles.includes(f.sourceFile)) return false;
  if (f.group !== undefined && e.group !== f.group) return false;
  if (f.kind !== undefined && e.kind !== f.kind) return false;
  if (f.search) {
    const q = f.search.toLowerCase();
    if (!e.title.toLowerCase().includes(q) && !e.content.toLowerCase().includes(q)) return false;
  }
  return true;
}

function allOf(ctx: ScannerContext, jobId: string): ReviewExtraction[] {
  return extractionsForReview(ctx.db, jobId).map(view);
}

const countBy = (items: string[]) => {
  const m = new Map<string, number>();
  for (const i of items) m.set(i, (m.get(i) ?? 0) + 1);
  return [...m].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
};

/**
 * A scan job's extractions for review: full text, filtered, a page at a
 * time, with the groups a reviewer sorts by (source file, title: the same
 * title from several files is usually one piece of lore) and the facets.
 */
const checkKind = (kind: string | undefined) => {
  if (kind !== undefined && !REVIEW_KINDS.includes(kind as never)) throw invalidRequest(`kind: unknown kind '${kind}' (${REVIEW_KINDS.join(", ")})`);
};

export function reviewExtractions(ctx: ScannerContext, projectId: string, jobId: string, filter: ReviewFilter, page: { limit: number; offset: number }) {
  checkKind(filter.kind);
  const job = loadJob(ctx, projectId, jobId);
  // Opening one group reads only its rows (its facets are the group's too).
  const all = filter.group !== undefined ? extractionsOfGroup(ctx.db, job.id, filter.group).map(view) : allOf(ctx, job.id);
  const hits = all.filter((e) => matches(e, filter));
  return {
    jobId: job.id,
    status: job.status,
    committedAt: job.committed_at,
    total: hits.length,
    extractions: hits.slice(page.offset, page.offset + page.limit),
    groups: {
      bySourceFile: countBy(hits.flatMap((e) => e.sourceFiles)),
      byTitle: countBy(hits.map((e) => e.title)).filter((g) => g.count > 1),
    },
    facets: { tags: countBy(all.flatMap((e) => e.tags)), formats: countBy(all.flatMap((e) => e.formats)), kinds: countBy(all.map((e) => e.kind)) },
    skippedContent: JSON.parse(job.skipped) as unknown[],
  };
}

export interface ExtractionEdit {
  title?: string;
  tags?: string[];
  location?: string | null;
  content?: string;
}

/** Edits an extraction before it is committed (title, tags, location, text). */
export function editExtraction(ctx: ScannerContext, projectId: string, jobId: string, extractionId: string, edit: ExtractionEdit): ReviewExtraction {
  const job = loadJob(ctx, projectId, jobId);
  if (job.status !== "COMPLETED") throw new ApiError(409, "Job is not completed yet", { currentStatus: job.status });
  const row = extractionsForReview(ctx.db, job.id).find((r) => r.id === extractionId);
  if (!row) throw new ApiError(404, "Extraction not found");
  if (row.document_id && documentExists(ctx.db, projectId, row.document_id)) {
    throw new ApiError(409, "Extraction already committed", { documentId: row.document_id });
  }
  const problems: string[] = [];
  const title = edit.title === undefined ? row.title : edit.title.trim();
  if (!title || title.length > LIMITS.name) problems.push(`title: must be 1–${LIMITS.name} characters`);
  const tags = edit.tags === undefined ? (JSON.parse(row.tags) as string[]) : [...new Set(edit.tags.map((t) => t.trim()))];
  if (tags.length > 50) problems.push("tags: at most 50");
  tags.forEach((t, i) => (!t || t.length > LIMITS.tagName) && problems.push(`tags[${i}]: must be 1–${LIMITS.tagName} characters`));
  const location = edit.location === undefined ? row.location : edit.location?.trim() || null;
  if (location && location.length > LIMITS.name) problems.push(`location: at most ${LIMITS.name} characters`);
  const content = edit.content === undefined ? row.content : edit.content;
  if (!content.trim() || content.length > LIMITS.documentContent) problems.push("content: must not be empty");
  if (problems.length) throw invalidRequest(...problems);
  editExtractionRow(ctx.db, row.id, { title, tags, location, content });
  return view({ ...row, title, tags: JSON.stringify(tags), location, content });
}

/** Bulk approve: commits every extraction the filter matches (the same commit as POST /v1/scanner/commit). */
export function approveMatching(ctx: ScannerContext, projectId: string, jobId: string, filter: ReviewFilter) {
  checkKind(filter.kind);
  const job = loadJob(ctx, projectId, jobId);
  const ids = allOf(ctx, job.id)
    .filter((e) => matches(e, filter))
    .map((e) => e.id);
  if (ids.length === 0) throw new ApiError(400, "No matching extractions found");
  return commitExtractions(ctx, projectId, job.id, ids);
}
