import type { Generation } from "./generation.ts";
import { idsFilter, projectFilter } from "./filters.ts";
import { ProjectVectorCache, type CacheOptions, type CachedRow } from "./ProjectVectorCache.ts";
import { CHUNK_COLUMNS, toStringArray } from "./schemas.ts";
import type { Raw } from "./vectorRecords.ts";
import { readSnapshot, type SnapshotHeader } from "./cacheSnapshot.ts";
import type { DocumentBlock } from "./cacheBlocks.ts";
import { dropIndexPart } from "./indexPart.ts";
import { restoreRows } from "./restoreRows.ts";
import { readTail, type TailState } from "./rowsTail.ts";

/** Every chunk column but the text: the cache keeps no text, and not decoding it makes a cold load ~2× faster. */
const CACHED_COLUMNS = CHUNK_COLUMNS.filter((c) => c !== "text");

/**
 * The rows a cache's files on disk hold (rowsTail.ts): the view's stamp (the rows' file's, or its tail's last
 * segment's) and its documents in the order a load restores them; the rows' file's own stamp and rows, and its tail.
 */
export interface RowsOnDisk {
  stamp: string;
  blocks: DocumentBlock[];
  base: { stamp: string; rows: number };
  tail: TailState;
  /** rows of the segments after the view the index part lists: a load adds them to the index (restoreRows.ts) */
  partLag: number;
}

/**
 * Reads a project's chunk vectors of generation g into a new cache and
 * registers it, under the chunk gate's read side: a write waits until the
 * cache is registered, then keeps it in step (none can be missed).
 */
export function loadProjectCache(g: Generation, projectId: string, opts: CacheOptions = {}, snapshot?: string): Promise<{ cache: ProjectVectorCache; fromSnapshot: boolean; onDisk?: RowsOnDisk }> {
  return g.chunkGate.read(async () => {
    const cache = new ProjectVectorCache(g.dims, projectId, opts);
    const rowsFile = snapshot ? readSnapshot(snapshot) : null;
    const withTail = snapshot && rowsFile ? readTail(snapshot, rowsFile) : null;
    const file = withTail?.file;
    if (snapshot && withTail && file && (await snapshotCurrent(g, projectId, file.header))) {
      // a part made over other rows, or one that fails the index's checks, is never used: gone, and trained anew
      const restored = restoreRows(cache, snapshot, rowsFile!, file, withTail.segments);
      if (restored.drop) dropIndexPart(snapshot);
      g.vectorCache.set(projectId, cache);
      const stamp = file.header.stamp;
      const base = { stamp: rowsFile!.header.stamp!, rows: rowsFile!.header.rows };
      return { cache, fromSnapshot: true, ...(typeof stamp === "string" ? { onDisk: { stamp, blocks: cache.blocks(), base, tail: withTail.tail, partLag: restored.lag } } : {}) };
    }
    const byDoc = new Map<string, { rows: CachedRow[]; vectors: Float32Array[] }>();
    for await (const batch of g.chunks.query().where(projectFilter(projectId)).select([...CACHED_COLUMNS, "vector"])) {
      // column by column: Arrow's row proxies cost ~3× more per row, and the vectors arrive as one flat
      // Float32Array whose per-row views need no copy (the codes are made from them before the batch goes)
      const col = (name: string) => batch.getChild(name)!;
      const [id, doc, name, index, tags, loc] = ["id", "documentId", "documentName", "chunkIndex", "tags", "locationId"].map(col);
      const vec = col("vector");
      const rowOf = flatRows(vec, g.dims);
      for (let i = 0; i < batch.numRows; i++) {
        const v = rowOf(i);
        if (v === null) continue;
        const documentId = String(doc.get(i));
        const l = loc.get(i);
        const row: CachedRow = { id: String(id.get(i)), projectId, documentId, documentName: String(name.get(i)), chunkIndex: Number(index.get(i)), tags: toStringArray(tags.get(i)), locationId: l == null ? null : String(l) };
        const d = byDoc.get(documentId) ?? { rows: [], vectors: [] };
        d.rows.push(row);
        d.vectors.push(v);
        byDoc.set(documentId, d);
      }
    }
    cache.setDocuments([...byDoc].map(([documentId, d]) => ({ documentId, rows: d.rows, vectors: d.vectors })));
    g.vectorCache.set(projectId, cache); // set before the gate opens: no write can be missed
    return { cache, fromSnapshot: false };
  });
}

/** Whether a snapshot file describes this generation's rows of the project (a write deletes it first, so a count check catches the rest). */
async function snapshotCurrent(g: Generation, projectId: string, h: SnapshotHeader): Promise<boolean> {
  if (h.gen !== g.gen || h.embedderId !== g.embedderId || h.dims !== g.dims || h.projectId !== projectId) return false;
  return (await g.chunks.countRows(projectFilter(projectId))) === h.rows;
}

/**
 * Row i's vector as a view on the batch's one flat Float32Array (no per-row Arrow object, no copy), or null when
 * the row has none; falls back to Arrow's row access for any other layout.
 */
function flatRows(vec: { data: readonly any[]; get(i: number): any }, dims: number): (i: number) => Float32Array | null {
  const data = vec.data.length === 1 ? vec.data[0] : null;
  const values = data?.children?.[0]?.values;
  if (!(values instanceof Float32Array) || data.type?.listSize !== dims) {
    return (i) => {
      const v = vec.get(i);
      return v == null ? null : Float32Array.from(v.toArray ? v.toArray() : v);
    };
  }
  const base = data.offset + (data.children[0].offset ?? 0) / dims;
  return (i) => (data.nullCount > 0 && !data.getValid(i) ? null : values.subarray((base + i) * dims, (base + i + 1) * dims));
}

/** The texts of these chunks of the project (those still stored), by id: the cache holds none. */
export async function chunkTexts(g: Generation, projectId: string, ids: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (ids.length === 0) return out;
  const rows = (await g.chunks.query().where(`${projectFilter(projectId)} AND ${idsFilter(ids)}`).select(["id", "text"]).toArray()) as Raw[];
  for (const r of rows) out.set(String(r.id), String(r.text));
  return out;
}
