import type { Db } from "../../db/openDatabase.ts";
import { placeholders } from "../../lore/sqlList.ts";

/** SQL of the shared-lore level (tables mind_lore_hits and mind_shared_lore, migration 014). */

/**
 * The shared level is the same for every player of a mind: a document with a condition or a timer
 * (migration 019) never enters it, whatever this turn's state; such lore reaches a player only
 * through retrieval, re-checked every turn.
 */
const UNGATED = "d.when_condition IS NULL AND d.sticky IS NULL AND d.cooldown IS NULL AND d.delay IS NULL";

export interface SharedChunkRow {
  id: string;
  document_id: string;
  document_name: string;
  chunk_index: number;
  content: string;
  tags: string;
  hits: number;
  /** the document is a secret of the minds that know it (src/npc/secrets) */
  secret: number;
}

/** A chunk's tags meet the mind's: the chunk's own tags (as indexed) decide, never the document's current ones. */
const MEETS = (n: number) => `EXISTS (SELECT 1 FROM json_each(c.tags) WHERE json_each.value IN (${placeholders(n)}))`;

/** The walk of the project's visible chunks in document order (exported for the test that holds its plan to the index). */
export const sharedWalkSql = (tags: number) =>
  `SELECT c.id, c.document_id, d.name AS document_name, c.chunk_index, c.content, c.tags, 0 AS hits, d.secret
   FROM documents d INDEXED BY documents_project_name CROSS JOIN chunks c ON c.document_id = d.id
   WHERE d.project_id = ? AND d.status = 'COMPLETED' AND ${UNGATED} AND c.project_id = d.project_id AND ${MEETS(tags)}
   ORDER BY d.name, d.id, c.chunk_index
   LIMIT ?`;

/**
 * The chunks a mind may see (COMPLETED documents of its project whose chunk tags meet `tags`), the most
 * retrieved for this mind first, then in document order: the candidates of its shared lore.
 * In two reads, neither of which visits the whole project: the mind's own retrieval counts (mind_lore_hits,
 * its rows only), then a walk of the project's documents in name order (migration 034's index) that stops once
 * it holds `limit` chunks. One query ordering every visible chunk by its count read every COMPLETED document and
 * sorted the mind's visible chunks: ~0.25 s of CPU on a mind's first turn at 100,000 chunks (BENCHMARKS.md).
 */
export function sharedCandidates(
  db: Db,
  q: { projectId: string; mindId: string; tags: string[]; limit: number },
  walk: (db: Db, projectId: string, tags: string[], limit: number) => SharedChunkRow[] = sharedWalk,
): SharedChunkRow[] {
  if (q.tags.length === 0 || q.limit <= 0) return [];
  const hit = db
    .query<SharedChunkRow, (string | number)[]>(
      `SELECT c.id, c.document_id, d.name AS document_name, c.chunk_index, c.content, c.tags, h.hits, d.secret
       FROM mind_lore_hits h CROSS JOIN chunks c ON c.id = h.chunk_id CROSS JOIN documents d ON d.id = c.document_id
       WHERE h.mind_id = ? AND h.project_id = ? AND c.project_id = h.project_id AND d.project_id = c.project_id
         AND d.status = 'COMPLETED' AND ${UNGATED} AND ${MEETS(q.tags.length)}
       ORDER BY h.hits DESC, d.name, c.document_id, c.chunk_index
       LIMIT ?`,
    )
    .all(q.mindId, q.projectId, ...q.tags, q.limit);
  if (hit.length >= q.limit) return hit;
  // Every chunk of the hits is also met by the walk: take enough to skip them.
  const counted = new Set(hit.map((r) => r.id));
  const rest = walk(db, q.projectId, q.tags, q.limit);
  return [...hit, ...rest.filter((r) => !counted.has(r.id)).slice(0, q.limit - hit.length)];
}

/** The project's first `limit` chunks, in document order, that a mind of these tags may see (sharedWalkSql). */
export function sharedWalk(db: Db, projectId: string, tags: string[], limit: number): SharedChunkRow[] {
  return db.query<SharedChunkRow, (string | number)[]>(sharedWalkSql(tags.length)).all(projectId, ...tags, limit);
}

/**
 * Those chunks as the walk gives them (its columns, in the order of `ids`), of COMPLETED, ungated documents of the
 * project; a chunk that no longer is one is left out (the caller then walks again).
 */
export function sharedWalkRows(db: Db, projectId: string, ids: string[]): SharedChunkRow[] {
  if (ids.length === 0) return [];
  const rows = db
    .query<SharedChunkRow, string[]>(
      `SELECT c.id, c.document_id, d.name AS document_name, c.chunk_index, c.content, c.tags, 0 AS hits, d.secret
       FROM chunks c CROSS JOIN documents d ON d.id = c.document_id
       WHERE c.id IN (${placeholders(ids.length)}) AND c.project_id = ? AND d.project_id = c.project_id AND d.status = 'COMPLETED' AND ${UNGATED}`,
    )
    .all(...ids, projectId);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Those chunks (by id) that belong to a COMPLETED document of the project, with their current text and tags. */
export function sharedChunksById(db: Db, projectId: string, ids: string[]): SharedChunkRow[] {
  if (ids.length === 0) return [];
  return db
    .query<SharedChunkRow, string[]>(
      `SELECT c.id, c.document_id, d.name AS document_name, c.chunk_index, c.content, c.tags, 0 AS hits, d.secret
       FROM chunks c CROSS JOIN documents d ON d.id = c.document_id
       WHERE c.id IN (${placeholders(ids.length)}) AND c.project_id = ? AND d.project_id = c.project_id AND d.status = 'COMPLETED' AND ${UNGATED}`,
    )
    .all(...ids, projectId);
}

export interface SharedSelection {
  chunkIds: string[];
  /** the mind's retrieval count when the selection was made */
  hitsAt: number;
  /** what the choice was made from (sharedLore.ts loreInputs); '' for a row older than the column */
  loreStamp: string;
  computedAt: string;
}

export function readSelection(db: Db, projectId: string, mindId: string): SharedSelection | null {
  const r = db
    .query<{ chunk_ids: string; hits_at: number; lore_stamp: string; computed_at: string }, [string, string]>(
      "SELECT chunk_ids, hits_at, lore_stamp, computed_at FROM mind_shared_lore WHERE mind_id = ? AND project_id = ?",
    )
    .get(mindId, projectId);
  if (!r) return null;
  try {
    const ids = JSON.parse(r.chunk_ids) as unknown;
    return Array.isArray(ids) && ids.every((x) => typeof x === "string") ? { chunkIds: ids, hitsAt: r.hits_at, loreStamp: r.lore_stamp, computedAt: r.computed_at } : null;
  } catch {
    return null;
  }
}

/** Writes the selection, only while the mind exists in this project (a mind deleted meanwhile: nothing). */
export function writeSelection(db: Db, projectId: string, mindId: string, sel: Omit<SharedSelection, "computedAt">, now: string): void {
  db.query(
    `INSERT INTO mind_shared_lore (mind_id, project_id, chunk_ids, hits_at, lore_stamp, computed_at)
     SELECT id, project_id, ?, ?, ?, ? FROM entity_minds WHERE id = ? AND project_id = ?
     ON CONFLICT(mind_id) DO UPDATE SET chunk_ids = excluded.chunk_ids, hits_at = excluded.hits_at, lore_stamp = excluded.lore_stamp, computed_at = excluded.computed_at`,
  ).run(JSON.stringify(sel.chunkIds), sel.hitsAt, sel.loreStamp, now, mindId, projectId);
}

/** Forgets the selections of a project's minds (they are made again from the current lore). */
export function deleteSelections(db: Db, projectId: string, mindId?: string): number {
  if (mindId) return db.query("DELETE FROM mind_shared_lore WHERE project_id = ? AND mind_id = ?").run(projectId, mindId).changes;
  return db.query("DELETE FROM mind_shared_lore WHERE project_id = ?").run(projectId).changes;
}

/** One more retrieval of each chunk for this mind (only while the mind exists in this project). */
export function recordHits(db: Db, projectId: string, mindId: string, chunkIds: string[]): void {
  const ins = db.query(
    `INSERT INTO mind_lore_hits (mind_id, chunk_id, project_id, hits)
     SELECT id, ?, project_id, 1 FROM entity_minds WHERE id = ? AND project_id = ?
     ON CONFLICT(mind_id, chunk_id) DO UPDATE SET hits = hits + 1`,
  );
  db.transaction(() => {
    for (const id of new Set(chunkIds)) ins.run(id, mindId, projectId);
  })();
}

/** The mind's recorded retrievals of each of these chunks (absent: never retrieved). */
export function hitsOf(db: Db, projectId: string, mindId: string, chunkIds: string[]): Map<string, number> {
  if (chunkIds.length === 0) return new Map();
  const rows = db
    .query<{ chunk_id: string; hits: number }, string[]>(
      `SELECT chunk_id, hits FROM mind_lore_hits WHERE mind_id = ? AND project_id = ? AND chunk_id IN (${placeholders(chunkIds.length)})`,
    )
    .all(mindId, projectId, ...chunkIds);
  return new Map(rows.map((r) => [r.chunk_id, r.hits]));
}

/** How many retrievals were recorded for this mind, all chunks together. */
export function totalHits(db: Db, projectId: string, mindId: string): number {
  return (
    db.query<{ n: number | null }, [string, string]>("SELECT SUM(hits) AS n FROM mind_lore_hits WHERE mind_id = ? AND project_id = ?").get(mindId, projectId)?.n ?? 0
  );
}

/** The most talked-to minds that have knowledge tags (those worth keeping warm), all projects. */
export function mostUsedMinds(db: Db, limit: number): { projectId: string; id: string }[] {
  return db
    .query<{ project_id: string; id: string }, [number]>(
      `SELECT m.project_id, m.id FROM entity_minds m
       WHERE EXISTS (SELECT 1 FROM mind_knowledge_tags k WHERE k.mind_id = m.id)
       ORDER BY m.interaction_count DESC, m.created_at, m.id LIMIT ?`,
    )
    .all(limit)
    .map((r) => ({ projectId: r.project_id, id: r.id }));
}

/** The project's minds that have knowledge tags, the most talked-to first (the order the shared-lore warm-up takes them in). */
export function mindsByUse(db: Db, projectId: string): string[] {
  return db
    .query<{ id: string }, [string]>(
      `SELECT m.id FROM entity_minds m
       WHERE m.project_id = ? AND EXISTS (SELECT 1 FROM mind_knowledge_tags k WHERE k.mind_id = m.id)
       ORDER BY m.interaction_count DESC, m.created_at, m.id`,
    )
    .all(projectId)
    .map((r) => r.id);
}

/** Projects with at least one mind. */
export function projectsWithMinds(db: Db): string[] {
  return db.query<{ project_id: string }, []>("SELECT DISTINCT project_id FROM entity_minds").all().map((r) => r.project_id);
}
