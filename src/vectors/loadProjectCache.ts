import type { Generation } from "./generation.ts";
import { projectFilter } from "./filters.ts";
import { ProjectVectorCache } from "./ProjectVectorCache.ts";
import type { ChunkRow } from "./rows.ts";
import { CHUNK_COLUMNS } from "./schemas.ts";
import { toChunkRow, type Raw } from "./vectorRecords.ts";

/**
 * Reads a project's chunk vectors of generation g into a new cache and
 * registers it, under the chunk gate's read side: a write waits until the
 * cache is registered, then keeps it in step (none can be missed).
 */
export function loadProjectCache(g: Generation, projectId: string): Promise<ProjectVectorCache> {
  return g.chunkGate.read(async () => {
    const cache = new ProjectVectorCache(g.dims);
    const byDoc = new Map<string, { rows: ChunkRow[]; vectors: Float32Array[] }>();
    for await (const batch of g.chunks.query().where(projectFilter(projectId)).select([...CHUNK_COLUMNS, "vector"])) {
      for (const raw of batch.toArray() as Raw[]) {
        const row = toChunkRow(raw);
        const vec = raw.vector == null ? null : Float32Array.from(raw.vector.toArray ? raw.vector.toArray() : raw.vector);
        if (!vec) continue;
        const d = byDoc.get(row.documentId) ?? { rows: [], vectors: [] };
        d.rows.push(row);
        d.vectors.push(vec);
        byDoc.set(row.documentId, d);
      }
    }
    for (const [doc, d] of byDoc) cache.setDocument(doc, d.rows, d.vectors);
    g.vectorCache.set(projectId, cache); // set before the gate opens: no write can be missed
    return cache;
  });
}
