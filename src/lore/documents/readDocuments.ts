import type { ServiceContext } from "../../core/context.ts";
import { notFound } from "../../core/errors.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { pagination, type Page } from "../pagination.ts";
import { groupBy } from "../sqlList.ts";
import { chunksOfDocuments, documentPage, fullDocumentPage, fullDocumentRow, tagsOfDocuments, DOCUMENT_STATUSES, type DocRow, type DocTagRow, type DocumentStatus } from "./documentListStore.ts";
import { ftsQuery } from "./ftsQuery.ts";
import type { DocumentGate } from "./documentStore.ts";

export { DOCUMENT_STATUSES, type DocumentStatus };

export interface DocumentListItem {
  id: string;
  name: string;
  status: DocumentStatus;
  chunkCount: number;
  createdAt: string;
  updatedAt: string;
  processedAt: string | null;
  tags: { id: string; name: string; color: string | null; isDefault: boolean }[];
}

export interface DocumentFull {
  id: string;
  name: string;
  content: string;
  status: DocumentStatus;
  chunkCount: number;
  chunks: { id: string; content: string; chunkIndex: number; tags: string[] }[];
  tags: { id: string; name: string }[];
  location: { id: string; name: string } | null;
  createdAt: string;
  updatedAt: string;
  processedAt: string | null;
}

/** The admin API's document: the full form and when it may reach a prompt (the spec's shape has no such fields). */
export type AdminDocument = DocumentFull & DocumentGate & { secret: boolean; reveal: string | null };

export interface DocumentQuery extends Page {
  status?: DocumentStatus;
  tag?: string;
  search?: string;
}

function tagsOf(ctx: ServiceContext, ids: string[]): Map<string, DocTagRow[]> {
  return groupBy(tagsOfDocuments(ctx.db, ids), (r) => r.document_id);
}

/** GET /lore/documents: list form, newest first, filtered and paginated. */
export function listDocuments(ctx: ServiceContext, projectId: string, q: DocumentQuery) {
  let match: string | undefined;
  if (q.search !== undefined && q.search.trim() !== "") {
    const m = ftsQuery(q.search);
    if (m === null) return { documents: [], pagination: pagination(0, q) };
    match = m;
  }
  const { total, rows } = documentPage(ctx.db, projectId, { status: q.status, tag: q.tag, match }, q);
  const tags = tagsOf(ctx, rows.map((r) => r.id));
  const documents: DocumentListItem[] = rows.map((r) => ({
    id: r.id,
    name: r.name,
    status: r.status,
    chunkCount: r.chunk_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    processedAt: r.processed_at,
    tags: (tags.get(r.id) ?? []).map((t) => ({ id: t.id, name: t.name, color: t.color, isDefault: t.is_default === 1 })),
  }));
  return { documents, pagination: pagination(total, q) };
}

function fullDocuments(ctx: ServiceContext, rows: DocRow[], withGate = false): DocumentFull[] {
  const ids = rows.map((r) => r.id);
  const tags = tagsOf(ctx, ids);
  const chunkRows = chunksOfDocuments(ctx.db, ids);
  const chunks = groupBy(chunkRows, (c) => c.document_id);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    content: r.content,
    status: r.status,
    chunkCount: r.chunk_count,
    chunks: (chunks.get(r.id) ?? []).map((c) => ({
      id: c.id,
      content: c.content,
      chunkIndex: c.chunk_index,
      tags: parseJsonColumn<string[]>(c.tags, []),
    })),
    tags: (tags.get(r.id) ?? []).map((t) => ({ id: t.id, name: t.name })),
    location: r.location_id ? { id: r.location_id, name: r.location_name ?? "" } : null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    processedAt: r.processed_at,
    ...(withGate ? { when: r.when_condition, sticky: r.sticky, cooldown: r.cooldown, delay: r.delay, secret: r.secret === 1, reveal: r.reveal_condition } : {}),
  }));
}

/** GET /lore/documents/{id}: full form; another project's id is simply not found. */
export function getDocument(ctx: ServiceContext, projectId: string, documentId: string): DocumentFull {
  const row = fullDocumentRow(ctx.db, projectId, documentId);
  if (!row) throw notFound("Document");
  return fullDocuments(ctx, [row])[0];
}

/** A document as the admin API shows it: full form, condition and timers. */
export function adminDocument(ctx: ServiceContext, projectId: string, documentId: string): AdminDocument {
  const row = fullDocumentRow(ctx.db, projectId, documentId);
  if (!row) throw notFound("Document");
  return fullDocuments(ctx, [row], true)[0] as AdminDocument;
}

/** Every document of a project as the admin API lists them, newest first. */
export function adminDocuments(ctx: ServiceContext, projectId: string): AdminDocument[] {
  return fullDocuments(ctx, fullDocumentPage(ctx.db, projectId, { limit: 100_000, offset: 0 }).rows, true) as AdminDocument[];
}

/** GET /lore/documents/export: full form, newest first. */
export function exportDocuments(ctx: ServiceContext, projectId: string, page: Page) {
  const { total, rows } = fullDocumentPage(ctx.db, projectId, page);
  return { documents: fullDocuments(ctx, rows), pagination: pagination(total, page) };
}
