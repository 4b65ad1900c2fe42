import { writeTx, type Db } from "../../db/openDatabase.ts";
import { parseJsonColumn } from "../../core/json.ts";
import type { MemoryGroupRead, MemorySide } from "../../vectors/memoryIndex.ts";
import type { MemoryRow } from "../../vectors/VectorStore.ts";
import type { MemoryScope } from "./types.ts";
import { decodeVector, encodeVector } from "./memoryVectorBytes.ts";
import { forgetQueuedMemoryVectors } from "./memoryVectorQueueStore.ts";

// SQLite access for `memory_vectors` and `memory_vector_fills` (035_memory_vectors): each memory's vector copied
// from LanceDB beside its row, used only while it matches the row's text and the active embedder.

/** 53 bits of the text's wyhash: a number SQLite and JavaScript both hold exactly. */
export function textHash(text: string): number {
  return Number(BigInt(Bun.hash(text)) & 0x1f_ffff_ffff_ffffn);
}

interface GroupDbRow {
  id: string;
  text: string;
  importance: number;
  topics: string;
  created_at: string;
  embedder: string | null;
  text_hash: number | null;
  vector: Uint8Array | null;
}

/**
 * The pair's memories with their copied vectors, when every memory SQLite holds for the pair has a copy made by
 * `embedderId` from its current text; null when one misses or no longer matches (the caller reads LanceDB then),
 * and null for a pair SQLite holds no memory of: a turn never searches such a pair (it has no candidates), so what
 * asks is after LanceDB's own rows (vectors whose rows were erased, awaiting their purge).
 * The rows are SQLite's, read through memories_player: the scope is SQLite's exactly.
 */
export function readMemoryGroup(db: Db, s: MemoryScope, embedderId: string, dims: number): MemoryGroupRead | null {
  const found = db
    .query<GroupDbRow, [string, string, string]>(
      `SELECT m.id, m.text, m.importance, m.topics, m.created_at, v.embedder, v.text_hash, v.vector
       FROM memories m LEFT JOIN memory_vectors v ON v.memory_id = m.id
       WHERE m.project_id = ? AND m.player_id = ? AND m.mind_id = ?`,
    )
    .all(s.projectId, s.playerId, s.mindId);
  if (!found.length) return null;
  const rows: MemoryRow[] = [];
  const vectors: Float32Array[] = [];
  for (const r of found) {
    if (r.embedder !== embedderId || r.vector === null || r.text_hash !== textHash(r.text)) return null;
    const vector = decodeVector(r.vector, dims);
    if (!vector) return null;
    rows.push({
      id: r.id,
      projectId: s.projectId,
      entityMindId: s.mindId,
      playerId: s.playerId,
      text: r.text,
      importance: r.importance,
      topics: parseJsonColumn<string[]>(r.topics, []),
      createdAt: r.created_at,
    });
    vectors.push(vector);
  }
  return { rows, vectors };
}

/**
 * Copies LanceDB rows' vectors beside their memories, in float16 (memoryVectorBytes.ts says why): each row's text is
 * hashed with its vector, as LanceDB holds the pair, so a copy is always some text's true vector and is used only while
 * the memory has that text. A row whose memory SQLite does not hold in the row's project is skipped (a vector awaiting
 * its purge).
 */
export function writeMemoryVectors(db: Db, embedderId: string, rows: readonly MemoryRow[], vectors: readonly ArrayLike<number>[]): number {
  const put = db.query(
    `INSERT INTO memory_vectors (memory_id, embedder, text_hash, vector)
     SELECT id, ?, ?, ? FROM memories WHERE id = ? AND project_id = ?
     ON CONFLICT (memory_id) DO UPDATE SET embedder = excluded.embedder, text_hash = excluded.text_hash, vector = excluded.vector`,
  );
  let written = 0;
  writeTx(db, () => {
    for (let i = 0; i < rows.length; i++) {
      const v = vectors[i];
      if (!v) continue;
      written += put.run(embedderId, textHash(rows[i].text), encodeVector(v), rows[i].id, rows[i].projectId).changes;
    }
  });
  return written;
}

/** Whether the whole LanceDB memories table of this embedder was copied here once (later writes keep it in step). */
export function memoryVectorsFilled(db: Db, embedderId: string): boolean {
  return db.query<{ one: number }, [string]>("SELECT 1 AS one FROM memory_vector_fills WHERE embedder = ?").get(embedderId) !== null;
}

/** The fill's end: done for this embedder, its progress mark gone. */
export function markMemoryVectorsFilled(db: Db, embedderId: string, at: string): void {
  writeTx(db, () => {
    db.query("INSERT INTO memory_vector_fills (embedder, filled_at) VALUES (?, ?) ON CONFLICT (embedder) DO UPDATE SET filled_at = excluded.filled_at").run(embedderId, at);
    db.query("DELETE FROM memory_vector_fill_progress WHERE embedder = ?").run(embedderId);
  });
}

/**
 * Other embedders' fill marks: their copies are being overwritten by this one's, so a later switch back to one of them
 * must fill again. Their copies are not deleted here (one DELETE of a million rows would hold the server's thread for
 * seconds): the fill overwrites each in place, and a copy left over (a vector whose row is gone) is never read.
 */
export function forgetOtherEmbeddersFills(db: Db, embedderId: string): void {
  db.query("DELETE FROM memory_vector_fills WHERE embedder <> ?").run(embedderId);
  db.query("DELETE FROM memory_vector_fill_progress WHERE embedder <> ?").run(embedderId);
}

/** Where this embedder's fill stopped (036_memory_vector_fill_progress): the offset of its next slice, 0 if none. */
export function memoryVectorFillOffset(db: Db, embedderId: string): number {
  return db.query<{ next_offset: number }, [string]>("SELECT next_offset FROM memory_vector_fill_progress WHERE embedder = ?").get(embedderId)?.next_offset ?? 0;
}

export function saveMemoryVectorFillOffset(db: Db, embedderId: string, nextOffset: number, at: string): void {
  db.query(
    `INSERT INTO memory_vector_fill_progress (embedder, next_offset, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (embedder) DO UPDATE SET next_offset = excluded.next_offset, updated_at = excluded.updated_at`,
  ).run(embedderId, nextOffset, at);
}

/** The vector store's side of the copy: reads a pair's group, writes what LanceDB wrote or read. */
export function sqliteMemorySide(db: Db): MemorySide {
  return {
    read: (embedderId, dims, q) => readMemoryGroup(db, { projectId: q.projectId, mindId: q.entityMindId, playerId: q.playerId }, embedderId, dims),
    write: (embedderId, rows, vectors) => void writeMemoryVectors(db, embedderId, rows, vectors),
    appended: (ids) => forgetQueuedMemoryVectors(db, ids),
  };
}
