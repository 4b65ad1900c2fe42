import { ApiError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { nowIso } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { insertDocument } from "../lore/documents/writeDocuments.ts";
import { resolveTagNames } from "../lore/tags/writeTags.ts";
import { LIMITS } from "../lore/validate/fields.ts";
import type { ScannerContext } from "../core/context.ts";
import { loadJob } from "./scanJobRow.ts";

interface ExtractionRow {
  id: string;
  title: string;
  tags: string;
  location: string | null;
  content: string;
  document_id: string | null;
}

/**
 * POST /scanner/commit: approved extractions → PENDING Lore Documents (title,
 * full text, the tags that still exist in the project, the location by name);
 * the indexer chunks and embeds them in the background. An extraction already
 * committed answers with its existing document instead of a second one.
 * Unknown ids are ignored; none known is 400 `No matching extractions found`.
 */
export function commitExtractions(ctx: ScannerContext, projectId: string, jobId: string, extractionIds: string[]): { committed: number; documentIds: string[] } {
  const job = loadJob(ctx, projectId, jobId);
  if (job.status !== "COMPLETED") {
    throw new ApiError(400, "Job is not completed yet", { message: `The job is ${job.status}; only a COMPLETED job can be committed.` });
  }
  const ids = [...new Set(extractionIds)];
  return writeTx(ctx.db, () => {
    const pick = ctx.db.query<ExtractionRow, [string, string]>(
      "SELECT id, title, tags, location, content, document_id FROM scan_extractions WHERE id = ? AND job_id = ?",
    );
    const rows = ids.map((id) => pick.get(id, job.id)).filter((r): r is ExtractionRow => r !== null);
    if (rows.length === 0) throw new ApiError(400, "No matching extractions found");
    const docExists = ctx.db.query("SELECT 1 FROM documents WHERE id = ? AND project_id = ?");
    const locationByName = ctx.db.query<{ id: string }, [string, string]>("SELECT id FROM locations WHERE project_id = ? AND name = ? ORDER BY created_at LIMIT 1");
    const link = ctx.db.query("UPDATE scan_extractions SET document_id = ? WHERE id = ?");
    const documentIds: string[] = [];
    let created = 0;
    for (const r of rows) {
      // A document deleted since the last commit is made again.
      if (r.document_id && docExists.get(r.document_id, projectId)) {
        documentIds.push(r.document_id);
        continue;
      }
      const id = newId("doc");
      insertDocument(ctx, projectId, id, {
        key: null,
        name: r.title.slice(0, LIMITS.name).trim() || "Untitled extraction",
        content: r.content.slice(0, LIMITS.documentContent),
        tagIds: resolveTagNames(ctx, projectId, JSON.parse(r.tags) as string[]).ids,
        locationId: r.location ? (locationByName.get(projectId, r.location)?.id ?? null) : null,
      });
      link.run(id, r.id);
      documentIds.push(id);
      created++;
    }
    if (created > 0) ctx.db.query("UPDATE scan_jobs SET committed_at = ? WHERE id = ?").run(nowIso(ctx), job.id);
    return { committed: documentIds.length, documentIds };
  });
}
