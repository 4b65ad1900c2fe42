import type { Db } from "../../db/openDatabase.ts";
import { placeholders } from "../sqlList.ts";

/** The read side of documents for the lore API: list, full form, export (the tables are documentStore's). */

export const DOCUMENT_STATUSES = ["PENDING", "PROCESSING", "COMPLETED", "FAILED"] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export interface DocRow {
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
  when_condition: string | null;
  sticky: number | null;
  cooldown: number | null;
  delay: number | null;
  secret: number;
  reveal_condition: string | null;
}

export interface DocTagRow {
  document_id: string;
  id: string;
  name: string;
  color: string | null;
  is_default: number;
}

export interface DocChunkRow {
  id: string;
  document_id: string;
  content: string;
  chunk_index: number;
  tags: string;
}

const ORDER = "ORDER BY d.created_at DESC, d.rowid DESC";

const FULL_SELECT = `SELECT d.id, d.name, d.content, d.status, d.chunk_count, d.location_id, l.name AS location_name,
  d.created_at, d.updated_at, d.processed_at, d.when_condition, d.sticky, d.cooldown, d.delay, d.secret, d.reveal_condition
  FROM documents d LEFT JOIN locations l ON l.id = d.location_id`;

/** The tags of these documents, by tag name. */
export function tagsOfDocuments(db: Db, ids: string[]): DocTagRow[] {
  if (ids.length === 0) return [];
  return db
    .query<DocTagRow, string[]>(
      `SELECT dt.document_id, t.id, t.name, t.color, t.is_default FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
       WHERE dt.document_id IN (${placeholders(ids.length)}) ORDER BY t.name`,
    )
    .all(...ids);
}

export function chunksOfDocuments(db: Db, ids: string[]): DocChunkRow[] {
  if (ids.length === 0) return [];
  return db
    .query<DocChunkRow, string[]>(
      `SELECT id, document_id, content, chunk_index, tags FROM chunks WHERE document_id IN (${placeholders(ids.length)})
       ORDER BY chunk_index`,
    )
    .all(...ids);
}

/** One page of the project's documents (list form, newest first) and the total; `match` is an FTS5 query. */
export function documentPage(
  db: Db,
  projectId: string,
  f: { status?: DocumentStatus; tag?: string; match?: string },
  page: { limit: number; offset: number },
): { total: number; rows: DocRow[] } {
  let where = "d.project_id = ?";
  const params: (string | number)[] = [projectId];
  if (f.status) {
    where += " AND d.status = ?";
    params.push(f.status);
  }
  if (f.tag !== undefined) {
    where += " AND EXISTS (SELECT 1 FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.document_id = d.id AND t.name = ?)";
    params.push(f.tag);
  }
  if (f.match !== undefined) {
    where += " AND d.rowid IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?)";
    params.push(f.match);
  }
  // A tag's count starts from the tag's documents (document_tags_tag): the page below walks the project's
  // documents newest first and stops at its rows, but a count through that walk tests every document of the
  // project (~40 ms at 100,000). The pair (document, tag) is unique, so the join counts each document once.
  const total =
    f.tag === undefined
      ? db.query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM documents d WHERE ${where}`).get(...params)!.n
      : countTagged(db, projectId, f.tag, { status: f.status, match: f.match });
  const rows = db
    .query<DocRow, (string | number)[]>(
      `SELECT d.id, d.name, d.status, d.chunk_count, d.created_at, d.updated_at, d.processed_at
       FROM documents d WHERE ${where} ${ORDER} LIMIT ? OFFSET ?`,
    )
    .all(...params, page.limit, page.offset);
  return { total, rows };
}

function countTagged(db: Db, projectId: string, tag: string, f: { status?: DocumentStatus; match?: string }): number {
  // A document takes only its own project's tags (writeDocuments resolves tag names within the project), so the
  // tag's links alone are its documents: counted on the tag's index, no document row read (~7,500 rows at 100k).
  if (!f.status && f.match === undefined) {
    return db
      .query<{ n: number }, [string, string]>("SELECT COUNT(*) AS n FROM tags t CROSS JOIN document_tags dt ON dt.tag_id = t.id WHERE t.project_id = ? AND t.name = ?")
      .get(projectId, tag)!.n;
  }
  let where = "t.project_id = ? AND t.name = ? AND d.project_id = t.project_id";
  const params: string[] = [projectId, tag];
  if (f.status) {
    where += " AND d.status = ?";
    params.push(f.status);
  }
  if (f.match !== undefined) {
    where += " AND d.rowid IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?)";
    params.push(f.match);
  }
  return db
    .query<{ n: number }, string[]>(
      `SELECT COUNT(*) AS n FROM tags t CROSS JOIN document_tags dt ON dt.tag_id = t.id CROSS JOIN documents d ON d.id = dt.document_id WHERE ${where}`,
    )
    .get(...params)!.n;
}

export function fullDocumentRow(db: Db, projectId: string, documentId: string): DocRow | null {
  return db.query<DocRow, [string, string]>(`${FULL_SELECT} WHERE d.id = ? AND d.project_id = ?`).get(documentId, projectId);
}

/** Full rows, newest first, and the total. */
export function fullDocumentPage(db: Db, projectId: string, page: { limit: number; offset: number }): { total: number; rows: DocRow[] } {
  const total = db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM documents WHERE project_id = ?").get(projectId)!.n;
  const rows = db
    .query<DocRow, [string, number, number]>(`${FULL_SELECT} WHERE d.project_id = ? ${ORDER} LIMIT ? OFFSET ?`)
    .all(projectId, page.limit, page.offset);
  return { total, rows };
}

/** The project's documents holding any of these tag names, by name (what a set of knowledge tags opens). */
export function documentsTagged(db: Db, projectId: string, tagNames: string[]): { name: string; chunk_count: number }[] {
  return db
    .query<{ name: string; chunk_count: number }, string[]>(
      `SELECT DISTINCT d.id, d.name, d.chunk_count FROM documents d
       JOIN document_tags dt ON dt.document_id = d.id JOIN tags t ON t.id = dt.tag_id
       WHERE d.project_id = ? AND t.name IN (${placeholders(tagNames.length)})
       ORDER BY d.name`,
    )
    .all(projectId, ...tagNames);
}

/** Every document of a project (no content): the minds list's filters in one read. */
export function projectDocumentNames(db: Db, projectId: string): { id: string; name: string; chunk_count: number }[] {
  return db.query<{ id: string; name: string; chunk_count: number }, [string]>("SELECT id, name, chunk_count FROM documents WHERE project_id = ?").all(projectId);
}

/** Every (document, tag name) pair of a project. */
export function projectDocumentTags(db: Db, projectId: string): { document_id: string; tag: string }[] {
  return db
    .query<{ document_id: string; tag: string }, [string]>(
      "SELECT dt.document_id, t.name AS tag FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE t.project_id = ?",
    )
    .all(projectId);
}
