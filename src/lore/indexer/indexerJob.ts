import type { ServiceContext } from "../../core/context.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../ops/logger.ts";
import type { VectorStore } from "../../vectors/VectorStore.ts";
import { chunkText } from "../chunker.ts";
import { claimPendingDocument, clearTombstone, completeDocument, failDocument, takeTombstones, type PendingDocument } from "../documents/documentStore.ts";
import type { ChunkRow } from "../../vectors/rows.ts";

export interface IndexerContext extends ServiceContext {
  vectors: VectorStore;
  log: Logger;
}

/**
 * The `indexer` job: removes the vectors of deleted documents, then takes
 * PENDING documents a batch at a time (PENDING → PROCESSING → COMPLETED, or
 * FAILED with the reason kept): chunk, embed, write LanceDB, record the chunks.
 * Only the server process runs it, so only the server writes LanceDB.
 */
/** Documents, and chunks, claimed per step at most: bounds one embedding call and one LanceDB add. */
const BATCH_DOCUMENTS = 32;
const BATCH_CHUNKS = 256;
/**
 * How long one tick goes on while documents wait. The job is scheduled every 2 s; a tick that stopped at a fixed
 * 50 documents left the rest of those 2 s idle, capping a bulk import at 25 documents a second whatever the
 * embedder's speed. A tick now works through the backlog, checking the abort signal between batches, and ends
 * after this long so tombstones (deleted documents) and other projects' documents never wait behind a huge import
 * for more than a tick.
 */
export const INDEXER_TICK_MS = 10_000;

interface Prepared {
  doc: PendingDocument;
  chunks: { id: string; chunkIndex: number; content: string }[];
  rows: ChunkRow[];
}

function prepare(doc: PendingDocument): Prepared {
  const chunks = chunkText(doc.content).map((c) => ({ ...c, id: newId("chunk") }));
  const rows = chunks.map((c) => ({
    id: c.id,
    projectId: doc.projectId,
    documentId: doc.id,
    documentName: doc.name,
    chunkIndex: c.chunkIndex,
    text: c.content,
    tags: doc.tags,
    locationId: doc.locationId,
  }));
  return { doc, chunks, rows };
}

export async function runIndexer(
  ctx: IndexerContext,
  signal?: AbortSignal,
  maxDocuments = Number.POSITIVE_INFINITY,
  batchDocuments = BATCH_DOCUMENTS,
  budgetMs = INDEXER_TICK_MS,
): Promise<{ indexed: number; failed: number; removed: number }> {
  const until = performance.now() + budgetMs;
  let removed = 0;
  for (const t of takeTombstones(ctx)) {
    await ctx.vectors.deleteDocument(t.projectId, t.documentId);
    clearTombstone(ctx, t.documentId);
    removed++;
  }
  let indexed = 0;
  let failed = 0;
  let n = 0;
  while (n < maxDocuments && !signal?.aborted && performance.now() < until) {
    // several documents a step: one embedding call and two LanceDB commits for all of them (writeChunks.ts)
    const batch: Prepared[] = [];
    const before = n;
    let chunks = 0;
    while (n < maxDocuments && batch.length < batchDocuments && chunks < BATCH_CHUNKS) {
      const doc = claimPendingDocument(ctx);
      if (!doc) break;
      n++;
      try {
        const prepared = prepare(doc);
        batch.push(prepared);
        chunks += prepared.rows.length;
      } catch (e) {
        failed++;
        failDocument(ctx, doc, `Indexing failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (!batch.length) {
      if (n === before) break; // nothing pending
      continue; // only documents that failed to chunk
    }
    const byProject = Map.groupBy(batch, (p) => p.doc.projectId);
    for (const [projectId, group] of byProject) {
      let written = false;
      try {
        await ctx.vectors.replaceDocumentsChunks(projectId, group.map((p) => ({ documentId: p.doc.id, rows: p.rows })));
        written = true;
      } catch {
        // one bad document must not fail the others: write them one by one, each failing on its own
      }
      for (const p of group) {
        try {
          if (!written) await ctx.vectors.replaceDocumentChunks(projectId, p.doc.id, p.rows);
          if (completeDocument(ctx, p.doc, p.chunks)) indexed++;
        } catch (e) {
          failed++;
          const reason = e instanceof Error ? e.message : String(e);
          ctx.log.warn("document indexing failed", { documentId: p.doc.id, reason });
          failDocument(ctx, p.doc, `Indexing failed: ${reason}`);
        }
      }
    }
  }
  return { indexed, failed, removed };
}
