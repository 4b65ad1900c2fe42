import type { ServiceContext } from "../../core/context.ts";
import { readMinds } from "../../lore/minds/readMinds.ts";
import { getProject } from "../../projects/projectService.ts";
import { notFound } from "../../core/errors.ts";
import { documentIndexRow, documentTagRows, tagNames } from "../studioReadStore.ts";

/** The indexer's state of one document, with its failure reason (not part of the spec's document shape). */
export function documentIndexStatus(ctx: ServiceContext, projectId: string, documentId: string) {
  const row = documentIndexRow(ctx.db, projectId, documentId);
  if (!row) throw notFound("Document");
  return { id: documentId, status: row.status, errorMessage: row.error_message, processedAt: row.processed_at, chunkCount: row.chunk_count };
}

/**
 * Who knows what: the same rule retrieval applies (a mind sees a document
 * when one of the document's tags is one of the mind's knowledge tags;
 * DESIGN.md "Knowledge scoping"), laid out as minds × tags and, per
 * document, the minds that can see it.
 */
export function knowledgeMatrix(ctx: ServiceContext, projectId: string) {
  getProject(ctx, projectId);
  const minds = readMinds(ctx, projectId).map((m) => ({ id: m.id, entityName: m.entityName, knowledgeTags: m.knowledgeTags }));
  const tags = tagNames(ctx.db, projectId);
  const docTags = documentTagRows(ctx.db, projectId);
  const docs = new Map<string, { id: string; name: string; status: string; tags: string[] }>();
  for (const r of docTags) {
    const d = docs.get(r.id) ?? { id: r.id, name: r.name, status: r.status, tags: [] };
    if (r.tag) d.tags.push(r.tag);
    docs.set(r.id, d);
  }
  const documents = [...docs.values()].map((d) => ({
    ...d,
    visibleTo: minds.filter((m) => d.tags.some((t) => m.knowledgeTags.includes(t))).map((m) => m.id),
  }));
  return { minds, tags, documents };
}
