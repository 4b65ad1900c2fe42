import { ApiError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { nowIso } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { insertDocument } from "../lore/documents/writeDocuments.ts";
import { resolveTagNames } from "../lore/tags/writeTags.ts";
import { LIMITS } from "../lore/validate/fields.ts";
import type { ScannerContext } from "../core/context.ts";
import { loadJob } from "./scanJobRow.ts";
import { markCommitted } from "./scanJobStore.ts";
import { extractionsToCommit, linkExtractionToDocument } from "./scanExtractionStore.ts";
import { documentExists } from "../lore/documents/documentStore.ts";
import { locationIdByName } from "../lore/locations/locationStore.ts";
import { extractionPages } from "./readJobs.ts";
import { isEmptySelection, selects, type Selection } from "./reviewGroups.ts";

/**
 * The ids to commit: the listed ones plus every extraction an `accept` selection picks (whole
 * groups, files, folders, kinds), minus every one a `reject` selection picks.
 */
function selectedIds(ctx: ScannerContext, jobId: string, listed: string[], review: { accept?: Selection; reject?: Selection }): string[] {
  const ids = new Set(listed);
  if (isEmptySelection(review.accept) && isEmptySelection(review.reject)) return [...ids];
  for (const page of extractionPages(ctx, jobId)) {
    for (const e of page) {
      if (selects(review.reject, e)) ids.delete(e.id);
      else if (selects(review.accept, e)) ids.add(e.id);
    }
  }
  return [...ids];
}

/**
 * POST /scanner/commit: approved extractions → PENDING Lore Documents (title,
 * full text, the tags that still exist in the project, the location by name);
 * the indexer chunks and embeds them in the background. An extraction already
 * committed answers with its existing document instead of a second one.
 * Unknown ids are ignored; none known is 400 `No matching extractions found`.
 */
export function commitExtractions(
  ctx: ScannerContext,
  projectId: string,
  jobId: string,
  extractionIds: string[],
  review: { accept?: Selection; reject?: Selection } = {},
): { committed: number; documentIds: string[] } {
  const job = loadJob(ctx, projectId, jobId);
  if (extractionIds.length === 0 && isEmptySelection(review.accept)) {
    throw new ApiError(400, "Invalid request", { details: ["extractionIds: required, a non-empty list of extraction ids (or an accept selection)"] });
  }
  if (job.status !== "COMPLETED") {
    throw new ApiError(400, "Job is not completed yet", { message: `The job is ${job.status}; only a COMPLETED job can be committed.` });
  }
  const ids = selectedIds(ctx, job.id, extractionIds, review);
  return writeTx(ctx.db, () => {
    const rows = extractionsToCommit(ctx.db, job.id, ids);
    if (rows.length === 0) throw new ApiError(400, "No matching extractions found");
    const documentIds: string[] = [];
    let created = 0;
    for (const r of rows) {
      // A document deleted since the last commit is made again.
      if (r.document_id && documentExists(ctx.db, projectId, r.document_id)) {
        documentIds.push(r.document_id);
        continue;
      }
      const id = newId("doc");
      insertDocument(ctx, projectId, id, {
        key: null,
        name: r.title.slice(0, LIMITS.name).trim() || "Untitled extraction",
        content: r.content.slice(0, LIMITS.documentContent),
        tagIds: resolveTagNames(ctx, projectId, JSON.parse(r.tags) as string[]).ids,
        locationId: r.location ? locationIdByName(ctx.db, projectId, r.location) : null,
      });
      linkExtractionToDocument(ctx.db, r.id, id);
      documentIds.push(id);
      created++;
    }
    if (created > 0) markCommitted(ctx.db, job.id, nowIso(ctx));
    return { committed: documentIds.length, documentIds };
  });
}
