import type { Mutex } from "./Mutex.ts";
import { asData, documentKey, type Generation, type Kind } from "./generation.ts";
import { idsFilter } from "./filters.ts";
import { CHUNK_COLUMNS, MEMORY_COLUMNS } from "./schemas.ts";
import { chunkRecord, memoryRecord, toChunkRow, toMemoryRow } from "./vectorRecords.ts";

/** Copies rows `ids` from `from` to `to`, re-embedding them. Rows already in `to` were dual-written: they are newer. */
export async function copyBatch(lock: Mutex, kind: Kind, from: Generation, to: Generation, ids: string[]): Promise<void> {
  const where = idsFilter(ids);
  const columns = kind === "chunks" ? CHUNK_COLUMNS : MEMORY_COLUMNS;
  const embedder = to.embedder!;
  // Embed outside the lock (the slow part); a vector depends on the text alone, and the rows are re-read under the lock.
  const draft = await from[kind].query().where(where).select(columns).toArray();
  const vectors = new Map<string, Float32Array>();
  const embedMissing = async (texts: string[]) => {
    const missing = [...new Set(texts.filter((t) => !vectors.has(t)))];
    if (!missing.length) return;
    const vs = await embedder.embed(missing);
    missing.forEach((t, i) => vectors.set(t, vs[i]));
  };
  await embedMissing(draft.map((r) => String(r.text)));
  await lock.run(async () => {
    const current = await from[kind].query().where(where).select(columns).toArray();
    const present = new Set((await to[kind].query().where(where).select(["id"]).toArray()).map((r) => String(r.id)));
    const rows = current.filter((r) => !present.has(String(r.id)));
    if (!rows.length) return;
    await embedMissing(rows.map((r) => String(r.text)));
    const data =
      kind === "chunks"
        ? rows.map((r) => chunkRecord(toChunkRow(r), vectors.get(String(r.text))!))
        : rows.map((r) => memoryRecord(toMemoryRow(r), vectors.get(String(r.text))!));
    await to[kind].add(asData(to, kind, data));
    if (kind === "chunks") for (const r of rows) to.documents.add(documentKey(String(r.projectId), String(r.documentId)));
  });
}
