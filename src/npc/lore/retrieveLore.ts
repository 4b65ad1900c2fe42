import type { ServiceContext } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { liveChunkTags } from "../../lore/documents/chunkSearchStore.ts";
import type { VectorStore } from "../../vectors/VectorStore.ts";
import { reciprocalRankFusion } from "../../vectors/rrf.ts";
import { chunkTextSearch } from "./chunkTextSearch.ts";

export interface LoreNote {
  chunkId: string;
  documentId: string;
  documentName: string;
  chunkIndex: number;
  text: string;
  tags: string[];
  score: number;
}

/**
 * The chunks among `chunkIds` that the visible tags still open, checked
 * against SQLite (the source of truth): the document exists in this project,
 * is COMPLETED, and the chunk's current tags intersect the visible set. This
 * guards both fresh LanceDB hits and lore kept in a session from earlier
 * turns (tags may have changed since).
 */
export function stillVisible(ctx: ServiceContext, projectId: string, chunkIds: string[], visible: string[]): Set<string> {
  const ok = new Set<string>();
  if (chunkIds.length === 0 || visible.length === 0) return ok;
  const allowed = new Set(visible);
  const unique = [...new Set(chunkIds)];
  for (let i = 0; i < unique.length; i += 500) {
    const part = unique.slice(i, i + 500);
    const rows = liveChunkTags(ctx.db, projectId, part);
    for (const r of rows) if (parseJsonColumn<string[]>(r.tags, []).some((t) => allowed.has(t))) ok.add(r.id);
  }
  return ok;
}

/** Candidates taken from each half before fusion. */
const candidatesFor = (k: number) => Math.min(Math.max(k * 4, 20), 200);

/**
 * Top-k lore for a query within the visible tags: hybrid retrieval — vector
 * similarity (the chunk vectors LanceDB stores, searched in memory) and BM25
 * (SQLite FTS5 over the same chunks), fused by reciprocal rank — then every
 * hit verified against SQLite. Both halves answer in a few milliseconds at
 * 10k chunks, which keeps the interact overhead inside its budget.
 */
export async function retrieveLore(
  ctx: ServiceContext & { vectors: VectorStore },
  q: { projectId: string; query: string; tags: string[]; k: number },
): Promise<LoreNote[]> {
  if (q.tags.length === 0 || q.query.trim() === "") return [];
  const n = candidatesFor(q.k);
  const byVector = await ctx.vectors.searchVectors({ projectId: q.projectId, query: q.query, tags: q.tags, n });
  const byText = chunkTextSearch(ctx, { projectId: q.projectId, query: q.query, tags: q.tags, n });
  const fused = reciprocalRankFusion([byVector, byText], (r) => r.id);
  const ok = stillVisible(ctx, q.projectId, fused.map((f) => f.item.id), q.tags);
  return fused
    .filter((f) => ok.has(f.item.id))
    .slice(0, q.k)
    .map(({ item, score }) => ({
      chunkId: item.id,
      documentId: item.documentId,
      documentName: item.documentName,
      chunkIndex: item.chunkIndex,
      text: item.text,
      tags: item.tags,
      score,
    }));
}
