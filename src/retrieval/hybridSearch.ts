import type { ServiceContext } from "../core/context.ts";
import { parseJsonColumn } from "../core/json.ts";
import { bm25Chunks, chunkContents, countChunks, liveChunkTags, termChunkCounts, type GateExclusion } from "../lore/documents/chunkSearchStore.ts";
import type { VectorHit, VectorStore } from "../vectors/VectorStore.ts";
import type { ChunkRow } from "../vectors/rows.ts";
import { reciprocalRankFusion } from "./rrf.ts";
import { OPEN_GATE, type LoreGate } from "./loreGate.ts";
import { QUERY_STOPWORDS as STOPWORDS } from "../core/text/commonWords.ts";

/**
 * The hybrid search the product runs, in one place: the vector half (the
 * vector store's in-memory ProjectVectorCache), the BM25 half (SQLite FTS5 over
 * the same chunks), reciprocal-rank fusion and the visibility check against
 * SQLite. Interact and the admin preview reach it through prepareTurn; tests
 * call retrieveLore or go through /v1/npc/interact.
 */

export interface LoreNote {
  chunkId: string;
  documentId: string;
  documentName: string;
  chunkIndex: number;
  text: string;
  tags: string[];
  score: number;
  /** a secret of the minds that know it (set by the turn from SQLite, src/npc/secrets) */
  secret?: boolean;
  /** a secret whose reveal condition holds this turn: told like any other note (src/npc/secrets) */
  revealed?: boolean;
}

/**
 * The chunks among `chunkIds` that the visible tags still open, checked
 * against SQLite (the source of truth): the document exists in this project,
 * is COMPLETED, is not held back by this turn's conditions or timers (`gate`),
 * and the chunk's current tags intersect the visible set. This guards both
 * fresh hits and lore kept in a session from earlier turns (tags, conditions
 * and state may have changed since).
 */
export function stillVisible(ctx: ServiceContext, projectId: string, chunkIds: string[], visible: string[], gate: LoreGate = OPEN_GATE): Set<string> {
  const ok = new Set<string>();
  if (chunkIds.length === 0 || visible.length === 0) return ok;
  const allowed = new Set(visible);
  const unique = [...new Set(chunkIds)];
  for (let i = 0; i < unique.length; i += 500) {
    const part = unique.slice(i, i + 500);
    const rows = liveChunkTags(ctx.db, projectId, part);
    for (const r of rows) {
      if (!gate.blocks(r.document_id) && parseJsonColumn<string[]>(r.tags, []).some((t) => allowed.has(t))) ok.add(r.id);
    }
  }
  return ok;
}

/** Ids checked by one visibility query while the best `k` are sought (more only when many of those are hidden). */
const VISIBLE_BATCH = 8;

/**
 * The first `k` of `ranked` (best first) that stillVisible keeps, the same as checking them all and keeping the
 * first `k`: checked a few at a time in rank order, so a turn usually reads 8 rows from SQLite, not all ~40 fused
 * candidates (BENCHMARKS.md "Big worlds: a preview over HTTP").
 */
export function firstVisible<T extends { item: { id: string } }>(ctx: ServiceContext, projectId: string, ranked: T[], visible: string[], gate: LoreGate, k: number): T[] {
  const kept: T[] = [];
  for (let i = 0; i < ranked.length && kept.length < k; i += VISIBLE_BATCH) {
    const batch = ranked.slice(i, i + VISIBLE_BATCH);
    const ok = stillVisible(ctx, projectId, batch.map((r) => r.item.id), visible, gate);
    for (const r of batch) if (ok.has(r.item.id) && kept.length < k) kept.push(r);
  }
  return kept;
}

/** Candidates taken from each half before fusion. */
const candidatesFor = (k: number) => Math.min(Math.max(k * 4, 20), 200);

// ---------------------------------------------------------------- the vector half is the vector store's searchVectors
// ---------------------------------------------------------------- the text half: BM25 over SQLite FTS5

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

/** Chunk count (a counter row: cheap enough to read at every turn). */
function totalChunks(ctx: ServiceContext): number {
  return countChunks(ctx.db);
}

/** How long a word's chunk count is reused while the chunk total stays the same. */
const TERM_COUNT_TTL_MS = 10 * 60_000;
/** Words kept at most (a player's words repeat: a game's vocabulary is a few thousand). */
const TERM_COUNT_MAX = 20_000;

/**
 * Words' chunk counts, kept while the total they were read with holds (and at most TERM_COUNT_TTL_MS): reading a
 * common word's count from FTS5's vocabulary walks its whole posting list, ~10 ms a word at 100,000 chunks, at
 * every turn. The counts only steer which words the query leaves out, so a count a little old is harmless.
 */
let termCounts = { db: null as unknown, total: -1, at: 0, counts: new Map<string, number>() };

function commonWords(ctx: ServiceContext, words: string[]): Set<string> {
  const total = totalChunks(ctx);
  if (words.length === 0 || total < 50) return new Set();
  const now = Date.now();
  if (termCounts.db !== ctx.db || termCounts.total !== total || now - termCounts.at > TERM_COUNT_TTL_MS || termCounts.counts.size > TERM_COUNT_MAX) {
    termCounts = { db: ctx.db, total, at: now, counts: new Map() };
  }
  const counts = termCounts.counts;
  const missing = words.filter((w) => !counts.has(w));
  if (missing.length) {
    for (const w of missing) counts.set(w, 0);
    for (const r of termChunkCounts(ctx.db, missing)) counts.set(r.term, r.doc);
  }
  return new Set(words.filter((w) => counts.get(w)! > total * COMMON_WORD_SHARE));
}

/**
 * The text half of the runtime's hybrid retrieval: BM25 over the project's
 * indexed chunks (SQLite FTS5), only chunks of COMPLETED documents whose
 * tags meet the visible ones, best first.
 */
export function chunkTextSearch(ctx: ServiceContext, q: { projectId: string; query: string; tags: string[]; n: number; exclude?: GateExclusion }): ChunkRow[] {
  if (q.tags.length === 0) return [];
  const common = commonWords(ctx, queryWords(q.query));
  const match = bm25Query(q.query, (w) => !common.has(w));
  if (!match) return [];
  const rows = bm25Chunks(ctx.db, { match, projectId: q.projectId, tags: q.tags, n: q.n, exclude: q.exclude });
  return rows.map((r) => ({
    id: r.id,
    projectId: r.project_id,
    documentId: r.document_id,
    documentName: r.document_name,
    chunkIndex: r.chunk_index,
    text: r.content,
    tags: parseJsonColumn<string[]>(r.tags, []),
    locationId: r.location_id,
  }));
}

// ---------------------------------------------------------------- fusion and the visibility check

/**
 * Top-k lore for a query within the visible tags: hybrid retrieval — vector
 * similarity (the chunk vectors LanceDB stores, searched in memory) and BM25
 * (SQLite FTS5 over the same chunks), fused by reciprocal rank — then every
 * hit verified against SQLite. Both halves answer in a few milliseconds at
 * 10k chunks, which keeps the interact overhead inside its budget. Documents
 * the turn's `gate` holds back (conditions, timers) are left out of both
 * halves, so they take no place among the candidates, and checked again.
 */
export async function retrieveLore(
  ctx: ServiceContext & { vectors: VectorStore },
  q: { projectId: string; query: string; tags: string[]; k: number; gate?: LoreGate },
): Promise<LoreNote[]> {
  if (q.tags.length === 0 || q.query.trim() === "") return [];
  const n = candidatesFor(q.k);
  const gate = q.gate ?? OPEN_GATE;
  const held = gate.exclusion ? (documentId: string) => gate.blocks(documentId) : undefined;
  const byVector = await ctx.vectors.searchVectorHits({ projectId: q.projectId, query: q.query, tags: q.tags, n, excludeDocument: held });
  const byText = chunkTextSearch(ctx, { projectId: q.projectId, query: q.query, tags: q.tags, n, exclude: gate.exclusion ?? undefined });
  const fused = reciprocalRankFusion<VectorHit | ChunkRow>([byVector, byText], (r) => r.id);
  const kept = firstVisible(ctx, q.projectId, fused, q.tags, gate, q.k);
  // the vector cache keeps no text: the few hits kept read theirs from SQLite (checked live just above)
  const texts = chunkContents(ctx.db, q.projectId, kept.filter((f) => !("text" in f.item)).map((f) => f.item.id));
  return kept.flatMap(({ item, score }) => {
    const text = "text" in item ? item.text : texts.get(item.id);
    if (text === undefined) return [];
    return [{ chunkId: item.id, documentId: item.documentId, documentName: item.documentName, chunkIndex: item.chunkIndex, text, tags: item.tags, score }];
  });
}
