import type { Db } from "../../db/openDatabase.ts";
import { placeholders } from "../sqlList.ts";

/** The runtime's reads of chunks (BM25 and the visibility check); the tables are documentStore's. */

export interface ChunkHitRow {
  id: string;
  project_id: string;
  document_id: string;
  document_name: string;
  location_id: string | null;
  chunk_index: number;
  content: string;
  tags: string;
}

/** Chunks of all projects (migration 034's counter, kept by triggers: counting the table took ~25 ms at 100,000). */
export function countChunks(db: Db): number {
  return db.query<{ n: number }, []>("SELECT n FROM chunk_total WHERE id = 1").get()?.n ?? 0;
}

/** How many chunks hold each of these terms (FTS5 vocabulary). */
export function termChunkCounts(db: Db, words: string[]): { term: string; doc: number }[] {
  if (words.length === 0) return [];
  return db
    .query<{ term: string; doc: number }, string[]>(`SELECT term, doc FROM chunks_fts_terms WHERE term IN (${placeholders(words.length)})`)
    .all(...words);
}

/**
 * What a turn's gate keeps out, in SQL's terms: documents whose condition is one of `conditions`
 * (false this turn), documents whose delay is past `turn`, and the documents `ids` (cooling down).
 */
export interface GateExclusion {
  conditions: string[];
  turn: number;
  ids: string[];
}

/**
 * BM25 over the project's chunks of COMPLETED documents whose tags meet `tags`, best first, leaving
 * out what this turn's conditions and timers keep out (`exclude`).
 */
export function bm25Chunks(db: Db, q: { match: string; projectId: string; tags: string[]; n: number; exclude?: GateExclusion }): ChunkHitRow[] {
  const without = q.exclude
    ? `AND NOT (d.when_condition IS NOT NULL AND d.when_condition IN (SELECT value FROM json_each(?)))
       AND NOT (d.delay IS NOT NULL AND d.delay > ?) AND c.document_id NOT IN (SELECT value FROM json_each(?))`
    : "";
  const args: (string | number)[] = [q.match, q.projectId, ...q.tags];
  if (q.exclude) args.push(JSON.stringify(q.exclude.conditions), q.exclude.turn, JSON.stringify(q.exclude.ids));
  return db
    .query<ChunkHitRow, (string | number)[]>(
      `SELECT c.id, c.project_id, c.document_id, d.name AS document_name, d.location_id, c.chunk_index, c.content, c.tags
       FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid JOIN documents d ON d.id = c.document_id
       WHERE chunks_fts MATCH ? AND c.project_id = ? AND d.status = 'COMPLETED'
         AND EXISTS (SELECT 1 FROM json_each(c.tags) WHERE json_each.value IN (${placeholders(q.tags.length)})) ${without}
       ORDER BY bm25(chunks_fts) LIMIT ?`,
    )
    .all(...args, q.n);
}

/** The tags (and document) of those chunks (ids) that belong to a COMPLETED document of the project. */
export function liveChunkTags(db: Db, projectId: string, ids: string[]): { id: string; document_id: string; tags: string }[] {
  return db
    .query<{ id: string; document_id: string; tags: string }, string[]>(
      // CROSS JOIN fixes the join order: look the chunks up by primary key, then each one's document.
      // (Left to itself, the planner may walk every COMPLETED document first: ~13 ms at 10k chunks.)
      `SELECT c.id, c.document_id, c.tags FROM chunks c CROSS JOIN documents d ON d.id = c.document_id
       WHERE c.id IN (${placeholders(ids.length)}) AND c.project_id = ? AND d.project_id = c.project_id AND d.status = 'COMPLETED'`,
    )
    .all(...ids, projectId);
}

/** The text of those chunks (ids) of the project, by id: the vector half's hits come without it. */
export function chunkContents(db: Db, projectId: string, ids: string[]): Map<string, string> {
  if (ids.length === 0) return new Map();
  const rows = db
    .query<{ id: string; content: string }, string[]>(`SELECT id, content FROM chunks WHERE id IN (${placeholders(ids.length)}) AND project_id = ?`)
    .all(...ids, projectId);
  return new Map(rows.map((r) => [r.id, r.content]));
}

/** A document with a condition or a timer: read at every turn (few rows, found by the documents_gated index). */
export interface GatedDocumentRow {
  id: string;
  name: string;
  when: string | null;
  sticky: number | null;
  cooldown: number | null;
  delay: number | null;
}

/** Changes whenever a gated document of the project is written or deleted (triggers of migration 019); 0: none ever. */
export function gateVersion(db: Db, projectId: string): number {
  return db.query<{ version: number }, [string]>("SELECT version FROM document_gate_versions WHERE project_id = ?").get(projectId)?.version ?? 0;
}

export function gatedDocuments(db: Db, projectId: string): GatedDocumentRow[] {
  return db
    .query<GatedDocumentRow, [string]>(
      `SELECT id, name, when_condition AS "when", sticky, cooldown, delay FROM documents INDEXED BY documents_gated
       WHERE project_id = ? AND (when_condition IS NOT NULL OR sticky IS NOT NULL OR cooldown IS NOT NULL OR delay IS NOT NULL)
       ORDER BY name, id`,
    )
    .all(projectId);
}
