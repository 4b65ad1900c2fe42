import type { ServiceContext } from "../../core/context.ts";
import { notFound } from "../../core/errors.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { pagination, type Page } from "../pagination.ts";
import { groupBy, placeholders } from "../sqlList.ts";
import { ftsQuery } from "./ftsQuery.ts";

export const DOCUMENT_STATUSES = ["PENDING", "PROCESSING", "COMPLETED", "FAILED"] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

interface DocRow {
  id: string;
  name: string;
  content: string;
  status: DocumentStatus;
  chunk_count: number;
  location_id: string | null;
  location_name: string | null;
  created_at: string;
  updated_at: string;
  processed_at: string | null;
}

interface DocTagRow {
  document_id: string;
  id: string;
  name: string;
  color: string | null;
  is_default: number;
}

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

export interface DocumentQuery extends Page {
  status?: DocumentStatus;
  tag?: string;
  search?: string;
}

const ORDER = "ORDER BY d.created_at DESC, d.rowid DESC";

function tagsOf(ctx: ServiceContext, ids: string[]): Map<string, DocTagRow[]> {
  if (ids.length === 0) return new Map();
  const rows = ctx.db
    .query<DocTagRow, string[]>(
      `SELECT dt.document_id, t.id, t.name, t.color, t.is_default FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
       WHERE dt.document_id IN (${placeholders(ids.length)}) ORDER BY t.name`,
    )
    .all(...ids);
  return groupBy(rows, (r) => r.document_id);
}

/** GET /lore/documents: list form, newest first, filtered and paginated. */
export function listDocuments(ctx: ServiceContext, projectId: string, q: DocumentQuery) {
  let where = "d.project_id = ?";
  const params: (string | number)[] = [projectId];
  if (q.status) {
    where += " AND d.status = ?";
    params.push(q.status);
  }
  if (q.tag !== undefined) {
    where += " AND EXISTS (SELECT 1 FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.document_id = d.id AND t.name = ?)";
    params.push(q.tag);
  }
  if (q.search !== undefined && q.search.trim() !== "") {
    const match = ftsQuery(q.search);
    if (match === null) return { documents: [], pagination: pagination(0, q) };
    where += " AND d.rowid IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?)";
    params.push(match);
  }
  const total = ctx.db.query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM documents d WHERE ${where}`).get(...params)!.n;
  const rows = ctx.db
    .query<DocRow, (string | number)[]>(
      `SELECT d.id, d.name, d.status, d.chunk_count, d.created_at, d.updated_at, d.processed_at
       FROM documents d WHERE ${where} ${ORDER} LIMIT ? OFFSET ?`,
    )
    .all(...params, q.limit, q.offset);
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

function fullDocuments(ctx: ServiceContext, rows: DocRow[]): DocumentFull[] {
  const ids = rows.map((r) => r.id);
  const tags = tagsOf(ctx, ids);
  const chunkRows = ids.length
    ? ctx.db
        .query<{ id: string; document_id: string; content: string; chunk_index: number; tags: string }, string[]>(
          `SELECT id, document_id, content, chunk_index, tags FROM chunks WHERE document_id IN (${placeholders(ids.length)})
           ORDER BY chunk_index`,
        )
        .all(...ids)
    : [];
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
  }));
}

const FULL_SELECT = `SELECT d.id, d.name, d.content, d.status, d.chunk_count, d.location_id, l.name AS location_name,
  d.created_at, d.updated_at, d.processed_at FROM documents d LEFT JOIN locations l ON l.id = d.location_id`;

/** GET /lore/documents/{id}: full form; another project's id is simply not found. */
export function getDocument(ctx: ServiceContext, projectId: string, documentId: string): DocumentFull {
  const row = ctx.db
    .query<DocRow, [string, string]>(`${FULL_SELECT} WHERE d.id = ? AND d.project_id = ?`)
    .get(documentId, projectId);
  if (!row) throw notFound("Document");
  return fullDocuments(ctx, [row])[0];
}

/** GET /lore/documents/export: full form, newest first. */
export function exportDocuments(ctx: ServiceContext, projectId: string, page: Page) {
  const total = ctx.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM documents WHERE project_id = ?").get(projectId)!.n;
  const rows = ctx.db
    .query<DocRow, [string, number, number]>(`${FULL_SELECT} WHERE d.project_id = ? ${ORDER} LIMIT ? OFFSET ?`)
    .all(projectId, page.limit, page.offset);
  return { documents: fullDocuments(ctx, rows), pagination: pagination(total, page) };
}
