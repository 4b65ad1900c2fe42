import type { ServiceContext } from "../../core/context.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../ops/logger.ts";
import type { VectorStore } from "../../vectors/VectorStore.ts";
import { chunkText } from "../chunker.ts";
import { claimPendingDocument, clearTombstone, completeDocument, failDocument, takeTombstones } from "../documents/documentStore.ts";

export interface IndexerContext extends ServiceContext {
  vectors: VectorStore;
  log: Logger;
}

/**
 * The `indexer` job: removes the vectors of deleted documents, then takes
 * PENDING documents one by one (PENDING → PROCESSING → COMPLETED, or FAILED
 * with the reason kept): chunk, embed, write LanceDB, record the chunks.
 * Only the server process runs it, so only the server writes LanceDB.
 */
export async function runIndexer(ctx: IndexerContext, signal?: AbortSignal, maxDocuments = 50): Promise<{ indexed: number; failed: number; removed: number }> {
  let removed = 0;
  for (const t of takeTombstones(ctx)) {
    await ctx.vectors.deleteDocument(t.projectId, t.documentId);
    clearTombstone(ctx, t.documentId);
    removed++;
  }
  let indexed = 0;
  let failed = 0;
  for (let n = 0; n < maxDocuments && !signal?.aborted; n++) {
    const doc = claimPendingDocument(ctx);
    if (!doc) break;
    try {
      const chunks = chunkText(doc.content).map((c) => ({ ...c, id: newId("chunk") }));
      await ctx.vectors.replaceDocumentChunks(
        doc.projectId,
        doc.id,
        chunks.map((c) => ({
          id: c.id,
          projectId: doc.projectId,
          documentId: doc.id,
          documentName: doc.name,
          chunkIndex: c.chunkIndex,
          text: c.content,
          tags: doc.tags,
          locationId: doc.locationId,
        })),
      );
      if (completeDocument(ctx, doc, chunks)) indexed++;
    } catch (e) {
      failed++;
      const reason = e instanceof Error ? e.message : String(e);
      ctx.log.warn("document indexing failed", { documentId: doc.id, reason });
      failDocument(ctx, doc, `Indexing failed: ${reason}`);
    }
  }
  return { indexed, failed, removed };
}
