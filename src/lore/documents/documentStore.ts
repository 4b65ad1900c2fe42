import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { firstColumn, linkedIds, writeTx, type Db } from "../../db/openDatabase.ts";
import { placeholders } from "../sqlList.ts";

/**
 * documents, document_tags, chunks and index_tombstones: the lore feature owns
 * these tables; every read and write of them is here (the indexer's claim and
 * completion, the lore API's rows, the checks other features make).
 */

export interface PendingDocument {
  id: string;
  projectId: string;
  name: string;
  content: string;
  locationId: string | null;
  indexVersion: number;
  tags: string[];
}

/**
 * Claims the next PENDING document (PENDING → PROCESSING) and returns what the
 * indexer needs. The index_version guards against an edit that lands while
 * the document is being embedded: the stale result is then discarded.
 */
/** The oldest PENDING document (exported for the test that holds its query plan to an index walk, no sort). */
export const CLAIM_PENDING_SQL = `SELECT id, project_id, name, content, location_id, index_version FROM documents
         WHERE status = 'PENDING' ORDER BY updated_at, rowid LIMIT 1`;

export function claimPendingDocument(ctx: ServiceContext): PendingDocument | null {
  return writeTx(ctx.db, () => {
    const row = ctx.db
      .query<{ id: string; project_id: string; name: string; content: string; location_id: string | null; index_version: number }, []>(CLAIM_PENDING_SQL)
      .get();
    if (!row) return null;
    ctx.db.query("UPDATE documents SET status = 'PROCESSING', error_message = NULL WHERE id = ?").run(row.id);
    const tags = ctx.db
      .query<{ name: string }, [string]>(
        "SELECT t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.document_id = ? ORDER BY t.name",
      )
      .all(row.id)
      .map((t) => t.name);
    return {
      id: row.id,
      projectId: row.project_id,
      name: row.name,
      content: row.content,
      locationId: row.location_id,
      indexVersion: row.index_version,
      tags,
    };
  });
}

/**
 * Records the chunks of an indexed document and marks it COMPLETED, unless
 * it was edited or deleted meanwhile (then false: the indexer will see it again).
 */
export function completeDocument(
  ctx: ServiceContext,
  doc: Pick<PendingDocument, "id" | "projectId" | "indexVersion" | "tags">,
  chunks: { id?: string; chunkIndex: number; content: string }[],
): boolean {
  return writeTx(ctx.db, () => {
    const cur = ctx.db
      .query<{ index_version: number; status: string }, [string]>("SELECT index_version, status FROM documents WHERE id = ?")
      .get(doc.id);
    if (!cur || cur.index_version !== doc.indexVersion) return false;
    ctx.db.query("DELETE FROM chunks WHERE document_id = ?").run(doc.id);
    const ins = ctx.db.query(
      "INSERT INTO chunks (id, project_id, document_id, chunk_index, content, tags) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const tags = JSON.stringify(doc.tags);
    for (const c of chunks) ins.run(c.id ?? newId("chunk"), doc.projectId, doc.id, c.chunkIndex, c.content, tags);
    const now = nowIso(ctx);
    ctx.db
      .query("UPDATE documents SET status = 'COMPLETED', chunk_count = ?, processed_at = ?, error_message = NULL WHERE id = ?")
      .run(chunks.length, now, doc.id);
    return true;
  });
}

/** FAILED with the reason kept (unless edited meanwhile: then it stays PENDING for another try). */
export function failDocument(ctx: ServiceContext, doc: Pick<PendingDocument, "id" | "indexVersion">, reason: string): void {
  ctx.db
    .query("UPDATE documents SET status = 'FAILED', error_message = ?, processed_at = ? WHERE id = ? AND index_version = ?")
    .run(reason.slice(0, 2000), nowIso(ctx), doc.id, doc.indexVersion);
}

/** Documents left PROCESSING by a crash go back to PENDING at boot. */
export function requeueInterrupted(ctx: ServiceContext): number {
  return ctx.db.query("UPDATE documents SET status = 'PENDING' WHERE status = 'PROCESSING'").run().changes;
}

export function takeTombstones(ctx: ServiceContext, limit = 100): { documentId: string; projectId: string }[] {
  return ctx.db
    .query<{ document_id: string; project_id: string }, [number]>(
      "SELECT document_id, project_id FROM index_tombstones ORDER BY created_at LIMIT ?",
    )
    .all(limit)
    .map((r) => ({ documentId: r.document_id, projectId: r.project_id }));
}

export function clearTombstone(ctx: ServiceContext, documentId: string): void {
  ctx.db.query("DELETE FROM index_tombstones WHERE document_id = ?").run(documentId);
}

export function documentExists(db: Db, projectId: string, id: string): boolean {
  return db.query("SELECT 1 FROM documents WHERE id = ? AND project_id = ?").get(id, projectId) !== null;
}

/**
 * When a document may reach a prompt (docs/internals/turn-pipeline.md): a condition on the turn's
 * state and timers counted in turns of a conversation. Null: not set.
 */
export interface DocumentGate {
  when: string | null;
  sticky: number | null;
  cooldown: number | null;
  delay: number | null;
}

export const NO_GATE: DocumentGate = { when: null, sticky: null, cooldown: null, delay: null };

/** A document's values in database terms (a document written without a gate has none). */
export interface DocumentValues extends Partial<DocumentGate> {
  key: string | null;
  name: string;
  content: string;
  tagIds: string[];
  locationId: string | null;
  /** a secret of the minds that know it: in their prompts as theirs to keep (src/npc/secrets); absent: false */
  secret?: boolean;
  /** a secret's reveal condition: while it holds for a turn, the secret is told like any other note; absent: kept always */
  reveal?: string | null;
}

/** The gate of a document's values, nulls for what is not set. */
export function gateOf(v: Partial<DocumentGate>): DocumentGate {
  return { when: v.when ?? null, sticky: v.sticky ?? null, cooldown: v.cooldown ?? null, delay: v.delay ?? null };
}

/** Inserted PENDING: the indexer chunks and embeds it. */
export function insertDocumentRow(db: Db, projectId: string, id: string, n: DocumentValues, at: string): void {
  const g = gateOf(n);
  db.query(
    `INSERT INTO documents (id, project_id, key, name, content, status, location_id, when_condition, sticky, cooldown, delay, secret, reveal_condition, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, projectId, n.key, n.name, n.content, n.locationId, g.when, g.sticky, g.cooldown, g.delay, n.secret ? 1 : 0, revealOf(n), at, at);
  setDocumentTags(db, id, n.tagIds);
}

/** `reindex`: back to PENDING with a new index_version (an indexer busy with the old one discards its result). */
export function updateDocumentRow(db: Db, id: string, n: Omit<DocumentValues, "tagIds">, reindex: boolean, at: string): void {
  const g = gateOf(n);
  db.query(
    `UPDATE documents SET key = ?, name = ?, content = ?, location_id = ?, when_condition = ?, sticky = ?, cooldown = ?, delay = ?, secret = ?, reveal_condition = ?, updated_at = ?,
       status = CASE WHEN ? THEN 'PENDING' ELSE status END, index_version = index_version + ?
     WHERE id = ?`,
  ).run(n.key, n.name, n.content, n.locationId, g.when, g.sticky, g.cooldown, g.delay, n.secret ? 1 : 0, revealOf(n), at, reindex ? 1 : 0, reindex ? 1 : 0, id);
}

export function setDocumentTags(db: Db, id: string, tagIds: string[]): void {
  db.query("DELETE FROM document_tags WHERE document_id = ?").run(id);
  const ins = db.query("INSERT INTO document_tags (document_id, tag_id) VALUES (?, ?)");
  for (const t of tagIds) ins.run(id, t);
}

/** false when there was no such document in the project. */
export function deleteDocumentRow(db: Db, projectId: string, id: string): boolean {
  return db.query("DELETE FROM documents WHERE id = ? AND project_id = ?").run(id, projectId).changes > 0;
}

export function documentValues(db: Db, projectId: string, id: string): DocumentValues | null {
  const r = db
    .query<Omit<DocumentValues, "tagIds">, [string, string]>(
      `SELECT key, name, content, location_id AS locationId, when_condition AS "when", sticky, cooldown, delay, secret, reveal_condition AS reveal
       FROM documents WHERE id = ? AND project_id = ?`,
    )
    .get(id, projectId);
  if (!r) return null;
  const tagIds = firstColumn<string>(db, "SELECT tag_id FROM document_tags WHERE document_id = ?", id);
  return { ...r, secret: !!r.secret, tagIds };
}

/** Chunks carry their tag names: documents using a renamed or deleted tag are re-indexed. */
export function markDocumentsWithTagsPending(db: Db, tagIds: string[], at: string): void {
  db.query(
    `UPDATE documents SET status = 'PENDING', index_version = index_version + 1, updated_at = ?
     WHERE id IN (SELECT document_id FROM document_tags WHERE tag_id IN (${placeholders(tagIds.length)}))`,
  ).run(at, ...tagIds);
}

/** Every document of the project in creation order, tag ids sorted (lore packs). */
export function projectDocuments(db: Db, projectId: string): (DocumentValues & { id: string })[] {
  const tagsOf = linkedIds(db, "SELECT dt.document_id, dt.tag_id FROM document_tags dt JOIN documents d ON d.id = dt.document_id WHERE d.project_id = ?", projectId);
  return db
    .query<Omit<DocumentValues, "tagIds"> & { id: string }, [string]>(
      `SELECT id, key, name, content, location_id AS locationId, when_condition AS "when", sticky, cooldown, delay, secret, reveal_condition AS reveal
       FROM documents WHERE project_id = ? ORDER BY created_at, id`,
    )
    .all(projectId)
    .map((d) => ({ ...d, secret: !!d.secret, tagIds: tagsOf.get(d.id) ?? [] }));
}

/** A secret's reveal condition as stored: only a secret has one. */
function revealOf(n: Pick<DocumentValues, "secret" | "reveal">): string | null {
  return n.secret && n.reveal ? n.reveal : null;
}

/**
 * Looks the documents up by id. The unary `+` keeps SQLite off the project's index: with the project id a bound
 * parameter it preferred that index and walked every document of the project (~30 ms a turn at 100,000).
 */
export const secretDocumentsSql = (ids: number) =>
  `SELECT id, reveal_condition AS reveal FROM documents WHERE id IN (${placeholders(ids)}) AND +project_id = ? AND secret = 1`;

/** The documents among `ids` (of this project) that are secrets of the minds that know them, each with its reveal condition (null: none). */
export function secretDocuments(db: Db, projectId: string, ids: string[]): Map<string, string | null> {
  if (ids.length === 0) return new Map();
  const unique = [...new Set(ids)];
  const rows = db.query<{ id: string; reveal: string | null }, string[]>(secretDocumentsSql(unique.length)).all(...unique, projectId);
  return new Map(rows.map((r) => [r.id, r.reveal]));
}

/**
 * The project's lore revision (migration 034's triggers): moves with every write of one of its documents, never
 * otherwise. 0: the project has had no document since the table exists.
 */
export function loreRevision(db: Db, projectId: string): number {
  return db.query<{ revision: number }, [string]>("SELECT revision FROM lore_revisions WHERE project_id = ?").get(projectId)?.revision ?? 0;
}

/** Whether any document of any project waits for the indexer or is being indexed (the lore is still moving). */
export function indexingPending(db: Db): boolean {
  return db.query("SELECT 1 FROM documents WHERE status IN ('PENDING', 'PROCESSING') LIMIT 1").get() !== null;
}
