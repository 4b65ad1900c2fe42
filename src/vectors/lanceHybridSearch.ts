import { loreFilter } from "./filters.ts";
import type { ChunkRow, LoreHit } from "./rows.ts";
import { reciprocalRankFusion } from "../retrieval/rrf.ts";
import { CHUNK_COLUMNS } from "./schemas.ts";
import { toChunkRow } from "./vectorRecords.ts";
import type { VectorTables } from "./vectorTables.ts";

/** Candidates taken from each of the two searches before fusion. */
const candidatesFor = (k: number) => Math.min(Math.max(k * 4, 20), 200);

export async function lanceHybridSearch(t: VectorTables, q: { projectId: string; query: string; tags: string[]; k: number }): Promise<LoreHit[]> {
  t.assertOpen();
  const tags = [...new Set(q.tags)];
  const k = Math.floor(q.k);
  if (!tags.length || !(k > 0)) return [];
  const where = loreFilter(q.projectId, tags);
  const n = candidatesFor(k);
  const g = t.acquire();
  try {
    // Embed before entering the gate: a slow model must not hold up writers.
    const v = g.embedder ? (await g.embedder.embed([q.query]))[0] : null;
    const cache = v ? await t.projectCache(g, q.projectId) : null;
    // Runs inside the read gate with the text search: both see the same commit.
    const vectorPart = async (): Promise<ChunkRow[]> => (v && cache ? cache.search(v, new Set(tags), n) : []);
    const textPart = async (): Promise<ChunkRow[]> => {
      if (!q.query.trim()) return [];
      const rows = await g.chunks
        .query()
        .fullTextSearch(q.query, { columns: "text" })
        .where(where)
        .select([...CHUNK_COLUMNS, "_score"])
        .limit(n)
        .toArray();
      return rows.map(toChunkRow);
    };
    const [byVector, byText] = await g.chunkGate.read(() => Promise.all([vectorPart(), textPart()]));
    const wanted = new Set(tags);
    return reciprocalRankFusion([byVector, byText], (r) => r.id)
      .filter(({ item }) => item.projectId === q.projectId && item.tags.some((t) => wanted.has(t))) // defence in depth
      .slice(0, k)
      .map(({ item, score, ranks }) => ({ ...item, score, vectorRank: ranks[0], textRank: ranks[1] }));
  } finally {
    g.readers--;
  }
}
