import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
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

interface Normalised {
  key: string | null;
  name: string;
  content: string;
  tagIds: string[];
  locationId: string | null;
}

function normalise(ctx: ServiceContext, projectId: string, input: DocumentInput, base?: Normalised): Normalised {
  const p = new Problems();
  const n: Normalised = base ? { ...base } : { key: null, name: "", content: "", tagIds: [], locationId: null };
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
  writeTx(ctx.db, () => insertDocument(ctx, projectId, id, n));
  return { id };
}

export function insertDocument(ctx: ServiceContext, projectId: string, id: string, n: Normalised): void {
  const now = nowIso(ctx);
  ctx.db
    .query(
      `INSERT INTO documents (id, project_id, key, name, content, status, location_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?, ?)`,
    )
    .run(id, projectId, n.key, n.name, n.content, n.locationId, now, now);
  const ins = ctx.db.query("INSERT INTO document_tags (document_id, tag_id) VALUES (?, ?)");
  for (const t of n.tagIds) ins.run(id, t);
}

/** Any edit of content, tags or location re-queues the document for indexing. */
export function updateDocument(ctx: ServiceContext, projectId: string, id: string, input: DocumentInput): { id: string } {
  const base = loadNormalised(ctx, projectId, id);
  const n = normalise(ctx, projectId, input, base);
  const reindex = n.content !== base.content || n.name !== base.name || n.locationId !== base.locationId ||
    n.tagIds.slice().sort().join() !== base.tagIds.slice().sort().join();
  writeTx(ctx.db, () => {
    ctx.db
      .query(
        `UPDATE documents SET key = ?, name = ?, content = ?, location_id = ?, updated_at = ?,
           status = CASE WHEN ? THEN 'PENDING' ELSE status END, index_version = index_version + ?
         WHERE id = ?`,
      )
      .run(n.key, n.name, n.content, n.locationId, nowIso(ctx), reindex ? 1 : 0, reindex ? 1 : 0, id);
    ctx.db.query("DELETE FROM document_tags WHERE document_id = ?").run(id);
    const ins = ctx.db.query("INSERT INTO document_tags (document_id, tag_id) VALUES (?, ?)");
    for (const t of n.tagIds) ins.run(id, t);
  });
  return { id };
}

export function deleteDocument(ctx: ServiceContext, projectId: string, id: string): void {
  const r = ctx.db.query("DELETE FROM documents WHERE id = ? AND project_id = ?").run(id, projectId);
  if (r.changes === 0) throw notFound("Document");
}

function loadNormalised(ctx: ServiceContext, projectId: string, id: string): Normalised {
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
