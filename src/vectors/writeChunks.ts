import { documentFilter } from "./filters.ts";
import { asData, documentKey, vectorsFor } from "./generation.ts";
import type { ProjectCaches } from "./ProjectCaches.ts";
import type { ChunkRow } from "./rows.ts";
import { sqlString } from "./sqlString.ts";
import { chunkRecord } from "./vectorRecords.ts";
import type { VectorTables } from "./vectorTables.ts";

/** The new chunks of one document (none: the document's chunks go). */
export interface DocumentChunks {
  documentId: string;
  rows: ChunkRow[];
}

/**
 * Replaces the chunks of several documents of one project in one embedding
 * call and two LanceDB commits (a delete of those that had chunks, one add),
 * instead of two commits a document: each commit costs ~20 ms whatever its
 * size, and adds a fragment that later reads and the compaction pay for, so a
 * bulk import's throughput was bounded by commits (BENCHMARKS.md "Big worlds").
 *
 * Both commits run under the gate's write side: no search runs between them, so
 * a reader sees the old chunks or the new ones, never both and never neither;
 * the snapshot files are set aside there too, before them (ProjectCaches.invalidate). (A
 * single mergeInsert with whenNotMatchedBySourceDelete is atomic on disk too, but
 * scans the whole table: ~520 ms per document at 100k chunks.) A crash between the
 * two leaves the documents without chunks until indexed again: documents still
 * PROCESSING at boot go back to PENDING.
 */
export async function replaceDocumentsChunks(t: VectorTables, caches: ProjectCaches, projectId: string, docs: DocumentChunks[]): Promise<void> {
  t.assertOpen();
  const seenDocs = new Set<string>();
  const ids = new Set<string>();
  for (const d of docs) {
    if (seenDocs.has(d.documentId)) throw new Error(`Document ${d.documentId} listed twice`);
    seenDocs.add(d.documentId);
    for (const r of d.rows) {
      if (r.projectId !== projectId || r.documentId !== d.documentId) {
        throw new Error(`Chunk ${r.id} belongs to ${r.projectId}/${r.documentId}, not ${projectId}/${d.documentId}`);
      }
      if (ids.has(r.id)) throw new Error("Duplicate chunk ids in one document");
      ids.add(r.id);
    }
  }
  if (!docs.length) return;
  const rows = docs.flatMap((d) => d.rows);
  const texts = rows.map((r) => r.text);
  const pre = texts.length ? await t.embedForActive(texts) : null;
  await t.locks.chunks.run(async () => {
    for (const g of t.writeTargets()) {
      const vectors = texts.length ? await vectorsFor(g, texts, pre) : null;
      const data = rows.length ? asData(g, "chunks", rows.map((r, i) => chunkRecord(r, vectors?.[i] ?? null))) : null;
      const had = docs.filter((d) => g.documents.has(documentKey(projectId, d.documentId))).map((d) => d.documentId);
      await g.chunkGate.write(async () => {
        // the project's snapshot files go before the table changes, under the gate: a save reads its epoch under
        // the gate's read side, so none can read it between this and the commits and find it unchanged at its own
        // commit (outside, a save whose read was granted just before the gate was asked for did, and kept its file
        // of the rows before the write, loaded after a crash once LanceDB had the write)
        caches.invalidate(g, projectId);
        if (caches.onWriteStep) await caches.onWriteStep("set aside");
        if (had.length) await g.chunks.delete(had.length === 1 ? documentFilter(projectId, had[0]) : `projectId = ${sqlString(projectId)} AND documentId IN (${had.map(sqlString).join(", ")})`);
        if (data) await g.chunks.add(data);
        if (caches.onWriteStep) await caches.onWriteStep("committed");
        const cache = g.vectorCache.get(projectId);
        // the documents written in one set of columns (rowColumns.ts); deleted ones out first (the order of the
        // cache's documents comes out as one at a time would leave it)
        let at = 0;
        const set: { documentId: string; rows: ChunkRow[]; vectors: Float32Array[] }[] = [];
        for (const d of docs) {
          if (!d.rows.length) cache?.deleteDocument(d.documentId);
          else if (vectors) set.push({ documentId: d.documentId, rows: d.rows, vectors: vectors.slice(at, at + d.rows.length) });
          at += d.rows.length;
        }
        cache?.setDocuments(set);
        caches.invalidate(g, projectId);
      });
      for (const d of docs) {
        if (d.rows.length) g.documents.add(documentKey(projectId, d.documentId));
        else g.documents.delete(documentKey(projectId, d.documentId));
      }
      caches.enforce(g);
    }
  });
  t.upkeep.noteCommit("chunks", rows.length);
}
