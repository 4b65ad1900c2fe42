import { chunkTexts } from "./loadProjectCache.ts";
import type { VectorHit } from "./ProjectVectorCache.ts";
import type { ChunkRow } from "./rows.ts";
import type { VectorTables } from "./vectorTables.ts";

/** The vector half of lore search over a project's in-memory cache. */

export interface VectorQuery {
  projectId: string;
  query: string;
  tags: string[];
  n: number;
  excludeDocument?: (documentId: string) => boolean;
}

/** The hits from memory alone, without their text, best first, each checked again against project and tags. */
export function searchVectorHits(t: VectorTables, q: VectorQuery): Promise<VectorHit[]> {
  return searchWith(t, q, async (_g, search) => search());
}

/** The hits with their text, read from LanceDB under the chunk gate together with the search itself. */
export function searchVectors(t: VectorTables, q: VectorQuery): Promise<ChunkRow[]> {
  return searchWith(t, q, (g, search) =>
    // under the gate's read side: no commit can replace a hit's document between the search and the text read
    g.chunkGate.read(async () => {
      const hits = search();
      const texts = await chunkTexts(g, q.projectId, hits.map((h) => h.id));
      return hits.filter((h) => texts.has(h.id)).map(({ score: _, ...h }) => ({ ...h, text: texts.get(h.id)! }));
    }),
  );
}

type Gen = ReturnType<VectorTables["acquire"]>;

async function searchWith<T>(t: VectorTables, q: VectorQuery, run: (g: Gen, search: () => VectorHit[]) => Promise<T[]>): Promise<T[]> {
  t.assertOpen();
  const tags = [...new Set(q.tags)];
  if (!tags.length || !(q.n > 0)) return [];
  const g = t.acquire();
  try {
    if (!g.embedder) return [];
    const v = (await g.embedder.embed([q.query]))[0];
    const cache = await t.projectCache(g, q.projectId);
    const wanted = new Set(tags);
    // synchronous: a commit changes the cache synchronously too, so a search sees one version of each document
    const search = () => cache.search(v, wanted, Math.floor(q.n), q.excludeDocument).filter((r) => r.projectId === q.projectId && r.tags.some((x) => wanted.has(x)));
    return await run(g, search);
  } finally {
    g.readers--;
  }
}
