import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { sameMembers } from "../../core/sameMembers.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { resolveTagNames } from "../tags/writeTags.ts";
import { LIMITS, Problems } from "../validate/fields.ts";

export interface DocumentInput {
  key?: unknown;
  name?: unknown;
  content?: unknown;
  tags?: unknown;
  locationId?: unknown;
}

/** A document's values in database terms. */
export interface DocumentValues {
  key: string | null;
  name: string;
  content: string;
  tagIds: string[];
  locationId: string | null;
}

function normalise(ctx: ServiceContext, projectId: string, input: DocumentInput, base?: DocumentValues): DocumentValues {
  const p = new Problems();
  const n: DocumentValues = base ? { ...base } : { key: null, name: "", content: "", tagIds: [], locationId: null };
  if (input.key !== undefined || !base) n.key = p.optionalString("key", input.key, LIMITS.key) ?? null;
  if (input.name !== undefined || !base) n.name = p.requiredString("name", input.name, LIMITS.name) ?? "";
  if (input.content !== undefined || !base) {
    if (typeof input.content !== "string") p.add("content", "required, a string");
    else if (input.content.length > LIMITS.documentContent) p.add("content", `at most ${LIMITS.documentContent} characters`);
    else n.content = input.content;
  }
  if (input.tags !== undefined) {
    const names = p.stringList("tags", input.tags, 200, LIMITS.tagName) ?? [];
    const { ids, missing } = resolveTagNames(ctx, projectId, names);
    for (const m of missing) p.add(`tags[${names.indexOf(m)}]`, `unknown tag '${m}'`);
    n.tagIds = ids;
  }
  if (input.locationId !== undefined) {
    if (input.locationId === null) n.locationId = null;
    else if (typeof input.locationId !== "string" || !ctx.db.query("SELECT 1 FROM locations WHERE id = ? AND project_id = ?").get(input.locationId, projectId)) {
      p.add("locationId", "no such location in this project");
    } else n.locationId = input.locationId;
  }
  p.throwIfAny();
  return n;
}

/** Stores a document as PENDING; the server's indexer chunks and embeds it. */
export function createDocument(ctx: ServiceContext, projectId: string, input: DocumentInput): { id: string } {
  const n = normalise(ctx, projectId, input);
  const id = newId("doc");
  writeTx(ctx.db, () => saveDocument(ctx, projectId, id, n, null));
  return { id };
}

export function insertDocument(ctx: ServiceContext, projectId: string, id: string, n: DocumentValues): void {
  const now = nowIso(ctx);
  ctx.db
    .query(
      `INSERT INTO documents (id, project_id, key, name, content, status, location_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?, ?)`,
    )
    .run(id, projectId, n.key, n.name, n.content, n.locationId, now, now);
  setDocumentTags(ctx, id, n.tagIds);
}


/**
 * Writes a document's values, the caller holding the write transaction; the one place both the
 * lore API and lore packs write documents. Without `before` it is inserted as PENDING; otherwise
 * only a change is written (an unchanged document keeps its updated_at), and a change of what its
 * chunks hold (text, name, tags, location) re-queues it for indexing. Returns whether it wrote.
 */
export function saveDocument(ctx: ServiceContext, projectId: string, id: string, n: DocumentValues, before: DocumentValues | null): boolean {
  if (!before) {
    insertDocument(ctx, projectId, id, n);
    return true;
  }
  const tagsChanged = !sameMembers(n.tagIds, before.tagIds);
  const reindex = n.content !== before.content || n.name !== before.name || n.locationId !== before.locationId || tagsChanged;
  if (!reindex && n.key === before.key) return false;
  ctx.db
    .query(
      `UPDATE documents SET key = ?, name = ?, content = ?, location_id = ?, updated_at = ?,
         status = CASE WHEN ? THEN 'PENDING' ELSE status END, index_version = index_version + ?
       WHERE id = ?`,
    )
    .run(n.key, n.name, n.content, n.locationId, nowIso(ctx), reindex ? 1 : 0, reindex ? 1 : 0, id);
  if (tagsChanged) setDocumentTags(ctx, id, n.tagIds);
  return true;
}

function setDocumentTags(ctx: ServiceContext, id: string, tagIds: string[]): void {
  ctx.db.query("DELETE FROM document_tags WHERE document_id = ?").run(id);
  const ins = ctx.db.query("INSERT INTO document_tags (document_id, tag_id) VALUES (?, ?)");
  for (const t of tagIds) ins.run(id, t);
}

/** Any edit of content, tags or location re-queues the document for indexing. */
export function updateDocument(ctx: ServiceContext, projectId: string, id: string, input: DocumentInput): { id: string } {
  const base = loadDocumentValues(ctx, projectId, id);
  const n = normalise(ctx, projectId, input, base);
  writeTx(ctx.db, () => saveDocument(ctx, projectId, id, n, base));
  return { id };
}

export function deleteDocument(ctx: ServiceContext, projectId: string, id: string): void {
  const r = ctx.db.query("DELETE FROM documents WHERE id = ? AND project_id = ?").run(id, projectId);
  if (r.changes === 0) throw notFound("Document");
}

function loadDocumentValues(ctx: ServiceContext, projectId: string, id: string): DocumentValues {
  const r = ctx.db
    .query<{ key: string | null; name: string; content: string; location_id: string | null }, [string, string]>(
      "SELECT key, name, content, location_id FROM documents WHERE id = ? AND project_id = ?",
    )
    .get(id, projectId);
  if (!r) throw notFound("Document");
  const tagIds = ctx.db
    .query<{ tag_id: string }, [string]>("SELECT tag_id FROM document_tags WHERE document_id = ?")
    .all(id)
    .map((t) => t.tag_id);
  return { key: r.key, name: r.name, content: r.content, tagIds, locationId: r.location_id };
}
