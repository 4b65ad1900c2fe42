import { newId } from "../../core/ids.ts";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { writeTx } from "../../db/openDatabase.ts";

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
export function claimPendingDocument(ctx: ServiceContext): PendingDocument | null {
  return writeTx(ctx.db, () => {
    const row = ctx.db
      .query<{ id: string; project_id: string; name: string; content: string; location_id: string | null; index_version: number }, []>(
        `SELECT id, project_id, name, content, location_id, index_version FROM documents
         WHERE status = 'PENDING' ORDER BY updated_at, rowid LIMIT 1`,
      )
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
