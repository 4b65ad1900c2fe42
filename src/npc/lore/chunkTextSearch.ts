import type { ServiceContext } from "../../core/context.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { bm25Chunks, countChunks, termChunkCounts } from "../../lore/documents/chunkSearchStore.ts";
import type { ChunkRow } from "../../vectors/VectorStore.ts";

/** Words that carry no meaning for retrieval (a player's line is mostly these). */
const STOPWORDS = new Set(
  "a an and are as at be but by can could did do does for from had has have he her him his how i if in into is it its me my no not of on or our she so than that the their them then there they this to up us was we were what when where which who why will with would you your".split(" "),
);

/** A player's line as search words: lower-cased, no stopwords, no duplicates. */
export function queryWords(text: string): string[] {
  const words = (text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOPWORDS.has(w));
  return [...new Set(words)].slice(0, 24);
}

/**
 * Words as an FTS5 query: each quoted (no FTS syntax can get through), any of
 * them may match (OR), ranked by BM25. Null when no word is left.
 */
export function bm25Query(text: string, keep?: (word: string) => boolean): string | null {
  const words = queryWords(text).filter((w) => !keep || keep(w));
  return words.length ? words.map((w) => `"${w.replaceAll('"', '""')}"`).join(" OR ") : null;
}

/**
 * A word held by more than this share of all chunks is left out of the query:
 * its BM25 weight is close to nothing, yet FTS5 would score every chunk that
 * holds it (ORDER BY bm25 has no early exit) — 45 ms at 10k chunks.
 */
const COMMON_WORD_SHARE = 0.1;

/** Chunk count, refreshed at most every few seconds (only the common-word cut-off needs it). */
let chunkTotal = { at: 0, n: 0, db: null as unknown };
function totalChunks(ctx: ServiceContext): number {
  const now = Date.now();
  if (chunkTotal.db !== ctx.db || now - chunkTotal.at > 5000) {
    chunkTotal = { at: now, n: countChunks(ctx.db), db: ctx.db };
  }
  return chunkTotal.n;
}

function commonWords(ctx: ServiceContext, words: string[]): Set<string> {
  const total = totalChunks(ctx);
  if (words.length === 0 || total < 50) return new Set();
  const rows = termChunkCounts(ctx.db, words);
  return new Set(rows.filter((r) => r.doc > total * COMMON_WORD_SHARE).map((r) => r.term));
}

/**
 * The text half of the runtime's hybrid retrieval: BM25 over the project's
 * indexed chunks (SQLite FTS5), only chunks of COMPLETED documents whose
 * tags meet the visible ones, best first.
 */
export function chunkTextSearch(ctx: ServiceContext, q: { projectId: string; query: string; tags: string[]; n: number }): ChunkRow[] {
  if (q.tags.length === 0) return [];
  const common = commonWords(ctx, queryWords(q.query));
  const match = bm25Query(q.query, (w) => !common.has(w));
  if (!match) return [];
  const rows = bm25Chunks(ctx.db, { match, projectId: q.projectId, tags: q.tags, n: q.n });
  return rows.map((r) => ({
    id: r.id,
    projectId: q.projectId,
    documentId: r.document_id,
    documentName: r.document_name,
    chunkIndex: r.chunk_index,
    text: r.content,
    tags: parseJsonColumn<string[]>(r.tags, []),
    locationId: r.location_id,
  }));
}
