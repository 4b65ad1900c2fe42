import * as lancedb from "@lancedb/lancedb";
import type { Connection } from "@lancedb/lancedb";
import { mkdir } from "node:fs/promises";
import type { Embedder } from "./Embedder.ts";
import { Mutex, ReadWriteLock } from "./Mutex.ts";
import { reciprocalRankFusion } from "./rrf.ts";
import { CHUNK_COLUMNS, MEMORY_COLUMNS } from "./schemas.ts";
import { documentFilter, idsFilter, loreFilter, memoryFilter, projectFilter } from "./filters.ts";
import { ProjectVectorCache } from "./ProjectVectorCache.ts";
import { OptimizePolicy } from "./OptimizePolicy.ts";
import type { ChunkRow, LoreHit, MemoryRow } from "./rows.ts";
import { chunkRecord, memoryRecord, toChunkRow, toMemoryRow, type Raw } from "./vectorRecords.ts";
import {
  TABLE_RE,
  allIds,
  asData,
  createGeneration,
  documentKey,
  openGeneration,
  optimizeTable,
  readMeta,
  tableName,
  vectorsFor,
  writeMeta,
  type Generation,
  type Kind,
  type PreEmbedded,
} from "./generation.ts";

export type { ChunkRow, LoreHit, MemoryRow };

/** Candidates taken from each of the two searches before fusion. */
const candidatesFor = (k: number) => Math.min(Math.max(k * 4, 20), 200);

/** Rows per batch when copying into a new generation. */
const REEMBED_BATCH = 256;

// No ANN (IVF_PQ / HNSW) index: brute-force cosine over the rows left after the
// projectId/tags prefilter (BTREE + LABEL_LIST indexes) is exact, and searchLore stays at
// p50 ~20 ms at 10k chunks and ~70 ms at 100k on 2 cores (bench/retrieval.ts). An IVF_PQ
// build took 13 s on 10k rows on 2 cores and loses recall under selective filters.
// Revisit (background build) when a deployment passes ~100k chunks.

/**
 * LanceDB-backed vectors for lore chunks and memories (DESIGN.md "Retrieval",
 * "Knowledge scoping", "Sessions and memory").
 *
 * Security rule: a chunk is returned only if its projectId equals the requested
 * one and its tags intersect the requested tags. The LanceDB filter enforces it
 * and a TypeScript post-filter checks every hit again.
 *
 * Only the server process writes; concurrent calls inside it are serialised per
 * table by a Mutex. A store opened with an embedder other than the one its tables
 * were built with is "stale": its `embedderId` is the stored one, lore search runs
 * on full text only, memory search returns nothing, and new rows are written
 * without vectors, until `reembedAll(embedder)` rebuilds it.
 */
export class VectorStore {
  readonly locks: Record<Kind, Mutex> = { chunks: new Mutex(), memories: new Mutex() };
  /** During reembedAll: the generation being built; every write goes to it too. */
  private pending: Generation | null = null;
  private readonly cacheLoads = new Map<string, Promise<ProjectVectorCache>>();
  private reembedding = false;
  closing = false;
  closed = false;
  private readonly upkeep = new OptimizePolicy(this);

  private constructor(
    private readonly dir: string,
    private readonly db: Connection,
    private active: Generation,
  ) {}

  static async open(dir: string, embedder: Embedder): Promise<VectorStore> {
    await mkdir(dir, { recursive: true });
    const db = await lancedb.connect(dir);
    const meta = await readMeta(dir);
    let active: Generation;
    if (!meta) {
      active = await createGeneration(db, 1, embedder.id, embedder.dims, embedder);
      await writeMeta(dir, { format: 1, generation: 1, embedderId: embedder.id, dims: embedder.dims });
    } else {
      const same = meta.embedderId === embedder.id;
      if (same && meta.dims !== embedder.dims) {
        throw new Error(`Vector store ${dir} was built by ${meta.embedderId} with ${meta.dims} dims, but that embedder now reports ${embedder.dims}`);
      }
      active = await openGeneration(db, meta, same ? embedder : null);
    }
    // Tables of any other generation are leftovers of an interrupted re-embed.
    for (const name of await db.tableNames()) {
      const m = TABLE_RE.exec(name);
      if (m && Number(m[2]) !== active.gen) await db.dropTable(name);
    }
    const store = new VectorStore(dir, db, active);
    await store.upkeep.measure(active);
    return store;
  }

  /** The embedder the searchable tables were built with. */
  get embedderId(): string {
    return this.active.embedderId;
  }

  /** True while reembedAll is building new tables. */
  get reembedInProgress(): boolean {
    return this.reembedding;
  }

  // ---------------------------------------------------------------- lore chunks

  async replaceDocumentChunks(projectId: string, documentId: string, rows: ChunkRow[]): Promise<void> {
    this.assertOpen();
    for (const r of rows) {
      if (r.projectId !== projectId || r.documentId !== documentId) {
        throw new Error(`Chunk ${r.id} belongs to ${r.projectId}/${r.documentId}, not ${projectId}/${documentId}`);
      }
    }
    if (new Set(rows.map((r) => r.id)).size !== rows.length) throw new Error("Duplicate chunk ids in one document");
    if (!rows.length) return this.deleteDocument(projectId, documentId);
    const texts = rows.map((r) => r.text);
    const pre = await this.embedForActive(texts);
    const where = documentFilter(projectId, documentId);
    const docKey = documentKey(projectId, documentId);
    await this.locks.chunks.run(async () => {
      for (const g of this.writeTargets()) {
        const vectors = await vectorsFor(g, texts, pre);
        const data = asData(g, "chunks", rows.map((r, i) => chunkRecord(r, vectors?.[i] ?? null)));
        // Two commits, but under the gate's write side: no search runs between them, so a reader
        // sees the old chunks or the new ones, never both and never neither. (A single mergeInsert
        // with whenNotMatchedBySourceDelete is atomic on disk too, but scans the whole table:
        // ~520 ms per document at 100k chunks against ~25 ms for this.) A crash between the two
        // leaves the document without chunks until it is indexed again: the indexer should treat
        // documents still PROCESSING at boot as PENDING.
        await g.chunkGate.write(async () => {
          if (g.documents.has(docKey)) await g.chunks.delete(where);
          await g.chunks.add(data);
          if (vectors) g.vectorCache.get(projectId)?.setDocument(documentId, rows, vectors);
        });
        g.documents.add(docKey);
      }
    });
    this.upkeep.noteCommit("chunks", rows.length);
  }

  async deleteDocument(projectId: string, documentId: string): Promise<void> {
    this.assertOpen();
    const where = documentFilter(projectId, documentId);
    await this.locks.chunks.run(async () => {
      for (const g of this.writeTargets()) {
        await g.chunkGate.write(async () => {
          await g.chunks.delete(where);
          g.vectorCache.get(projectId)?.deleteDocument(documentId);
        });
        g.documents.delete(documentKey(projectId, documentId));
      }
    });
    this.upkeep.noteCommit("chunks");
  }

  async deleteProject(projectId: string): Promise<void> {
    this.assertOpen();
    const where = projectFilter(projectId);
    for (const kind of ["chunks", "memories"] as const) {
      await this.locks[kind].run(async () => {
        for (const g of this.writeTargets()) {
          if (kind === "chunks") {
            await g.chunkGate.write(async () => {
              await g.chunks.delete(where);
              g.vectorCache.delete(projectId);
            });
            const prefix = documentKey(projectId, "");
            for (const key of g.documents) if (key.startsWith(prefix)) g.documents.delete(key);
          } else await g.memories.delete(where);
        }
      });
      this.upkeep.noteCommit(kind);
    }
  }

  async searchLore(q: { projectId: string; query: string; tags: string[]; k: number }): Promise<LoreHit[]> {
    this.assertOpen();
    const tags = [...new Set(q.tags)];
    const k = Math.floor(q.k);
    if (!tags.length || !(k > 0)) return [];
    const where = loreFilter(q.projectId, tags);
    const n = candidatesFor(k);
    const g = this.acquire();
    try {
      // Embed before entering the gate: a slow model must not hold up writers.
      const v = g.embedder ? (await g.embedder.embed([q.query]))[0] : null;
      const cache = v ? await this.projectCache(g, q.projectId) : null;
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

  /**
   * The vector half alone: the n chunks of a project most similar to `query`
   * among those whose tags meet `tags`, best first (the runtime fuses it
   * with its own full-text search).
   */
  async searchVectors(q: { projectId: string; query: string; tags: string[]; n: number }): Promise<ChunkRow[]> {
    this.assertOpen();
    const tags = [...new Set(q.tags)];
    if (!tags.length || !(q.n > 0)) return [];
    const g = this.acquire();
    try {
      if (!g.embedder) return [];
      const v = (await g.embedder.embed([q.query]))[0];
      const cache = await this.projectCache(g, q.projectId);
      const wanted = new Set(tags);
      return cache.search(v, wanted, Math.floor(q.n)).filter((r) => r.projectId === q.projectId && r.tags.some((t) => wanted.has(t)));
    } finally {
      g.readers--;
    }
  }

  /** Loads the projects' vector caches ahead of their first search (the server does it at boot). */
  async warm(projectIds: string[]): Promise<number> {
    this.assertOpen();
    const g = this.acquire();
    try {
      if (!g.embedder) return 0;
      let rows = 0;
      for (const id of projectIds) rows += (await this.projectCache(g, id)).size;
      return rows;
    } finally {
      g.readers--;
    }
  }

  /** The project's vector cache for generation g, loaded from LanceDB on first use. */
  private async projectCache(g: Generation, projectId: string): Promise<ProjectVectorCache> {
    const have = g.vectorCache.get(projectId);
    if (have) return have;
    let loading = this.cacheLoads.get(g.gen + "\u0000" + projectId);
    if (!loading) {
      loading = g.chunkGate
        .read(async () => {
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
        })
        .finally(() => this.cacheLoads.delete(g.gen + "\u0000" + projectId));
      this.cacheLoads.set(g.gen + "\u0000" + projectId, loading);
    }
    return loading;
  }

  async countChunks(projectId?: string): Promise<number> {
    this.assertOpen();
    return this.active.chunks.countRows(projectId === undefined ? undefined : projectFilter(projectId));
  }

  // ------------------------------------------------------------------- memories

  async upsertMemories(rows: MemoryRow[]): Promise<void> {
    this.assertOpen();
    if (!rows.length) return;
    if (new Set(rows.map((r) => r.id)).size !== rows.length) throw new Error("Duplicate memory ids");
    const texts = rows.map((r) => r.text);
    const pre = await this.embedForActive(texts);
    await this.locks.memories.run(async () => {
      for (const g of this.writeTargets()) {
        const vectors = await vectorsFor(g, texts, pre);
        const data = asData(g, "memories", rows.map((r, i) => memoryRecord(r, vectors?.[i] ?? null)));
        await g.memories.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
      }
    });
    this.upkeep.noteCommit("memories", rows.length);
  }

  async deleteMemories(filter: { projectId: string; playerId?: string; entityMindId?: string; ids?: string[] }): Promise<void> {
    this.assertOpen();
    if (filter.ids && filter.ids.length === 0) return; // "these ids" with none listed deletes nothing
    const where = memoryFilter(filter);
    await this.locks.memories.run(async () => {
      for (const g of this.writeTargets()) await g.memories.delete(where);
    });
    this.upkeep.noteCommit("memories");
  }

  /** Memories of this player with this mind, most similar to `query` first; score is cosine similarity. */
  async searchMemories(q: {
    projectId: string;
    entityMindId: string;
    playerId: string;
    query: string;
    k: number;
  }): Promise<(MemoryRow & { score: number })[]> {
    this.assertOpen();
    const k = Math.floor(q.k);
    if (!(k > 0)) return [];
    const g = this.acquire();
    try {
      if (!g.embedder) return [];
      const [v] = await g.embedder.embed([q.query]);
      const where = memoryFilter({ projectId: q.projectId, entityMindId: q.entityMindId, playerId: q.playerId });
      const rows = await g.memories
        .vectorSearch(v)
        .distanceType("cosine")
        .where(where)
        .select([...MEMORY_COLUMNS, "_distance"])
        .limit(k)
        .toArray();
      return rows
        .map((r) => ({ ...toMemoryRow(r), score: 1 - Number(r._distance) }))
        .filter((m) => m.projectId === q.projectId && m.entityMindId === q.entityMindId && m.playerId === q.playerId);
    } finally {
      g.readers--;
    }
  }

  // ------------------------------------------------------------------ re-embed

  /**
   * Rebuilds every table with `newEmbedder` while searches keep answering from
   * the current tables, then swaps. Writes made meanwhile go to both sets. The
   * caller keeps ownership of both embedders (nothing is disposed here).
   */
  async reembedAll(newEmbedder: Embedder, onProgress?: (done: number, total: number) => void): Promise<void> {
    this.assertOpen();
    if (this.reembedding) throw new Error("A re-embedding is already running");
    this.reembedding = true;
    const old = this.active;
    let next: Generation | null = null;
    try {
      next = await createGeneration(this.db, old.gen + 1, newEmbedder.id, newEmbedder.dims, newEmbedder);
      const target = next;
      // From here on every write also goes to the new tables; the id snapshot is taken in the
      // same critical section, so each row is either in the snapshot or dual-written (or both).
      const [chunkIds, memoryIds] = await this.withAllLocks(async () => {
        this.pending = target;
        return [await allIds(old.chunks), await allIds(old.memories)];
      });
      const total = chunkIds.length + memoryIds.length;
      let done = 0;
      onProgress?.(0, total);
      for (const [kind, ids] of [["chunks", chunkIds], ["memories", memoryIds]] as const) {
        for (let i = 0; i < ids.length; i += REEMBED_BATCH) {
          const batch = ids.slice(i, i + REEMBED_BATCH);
          await this.copyBatch(kind, old, target, batch);
          done += batch.length;
          onProgress?.(done, total);
        }
      }
      // Fold everything into the indexes before the new tables start answering searches.
      for (const kind of ["chunks", "memories"] as const) {
        await this.locks[kind].run(() => optimizeTable(target[kind]));
      }
      await this.withAllLocks(async () => {
        this.assertOpen();
        await writeMeta(this.dir, { format: 1, generation: target.gen, embedderId: target.embedderId, dims: target.dims });
        this.active = target;
        this.pending = null;
        await this.upkeep.measure(target);
      });
    } catch (e) {
      if (next) {
        const failed = next;
        await this.withAllLocks(async () => {
          this.pending = null;
        });
        await this.dropGeneration(failed);
      }
      throw e;
    } finally {
      this.reembedding = false;
    }
    await this.retire(old);
  }

  /** Copies rows `ids` from `from` to `to`, re-embedding them. Rows already in `to` were dual-written: they are newer. */
  private async copyBatch(kind: Kind, from: Generation, to: Generation, ids: string[]): Promise<void> {
    this.assertOpen();
    const where = idsFilter(ids);
    const columns = kind === "chunks" ? CHUNK_COLUMNS : MEMORY_COLUMNS;
    const embedder = to.embedder!;
    // Embed outside the lock (the slow part); a vector depends on the text alone, and the rows are re-read under the lock.
    const draft = await from[kind].query().where(where).select(columns).toArray();
    const vectors = new Map<string, Float32Array>();
    const embedMissing = async (texts: string[]) => {
      const missing = [...new Set(texts.filter((t) => !vectors.has(t)))];
      if (!missing.length) return;
      const vs = await embedder.embed(missing);
      missing.forEach((t, i) => vectors.set(t, vs[i]));
    };
    await embedMissing(draft.map((r) => String(r.text)));
    await this.locks[kind].run(async () => {
      const current = await from[kind].query().where(where).select(columns).toArray();
      const present = new Set((await to[kind].query().where(where).select(["id"]).toArray()).map((r) => String(r.id)));
      const rows = current.filter((r) => !present.has(String(r.id)));
      if (!rows.length) return;
      await embedMissing(rows.map((r) => String(r.text)));
      const data =
        kind === "chunks"
          ? rows.map((r) => chunkRecord(toChunkRow(r), vectors.get(String(r.text))!))
          : rows.map((r) => memoryRecord(toMemoryRow(r), vectors.get(String(r.text))!));
      await to[kind].add(asData(to, kind, data));
      if (kind === "chunks") for (const r of rows) to.documents.add(documentKey(String(r.projectId), String(r.documentId)));
    });
  }

  /** Drops a replaced generation once the searches still reading it have finished. */
  private async retire(g: Generation): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (g.readers > 0 && Date.now() < deadline) await Bun.sleep(10);
    await this.dropGeneration(g);
  }

  private async dropGeneration(g: Generation): Promise<void> {
    for (const kind of ["chunks", "memories"] as const) {
      try {
        g[kind].close();
      } catch {
        // already closed
      }
      try {
        await this.db.dropTable(tableName(kind, g.gen));
      } catch {
        // open() drops leftovers of other generations anyway
      }
    }
  }

  // ------------------------------------------------------------------ lifecycle

  /** Waits for queued writes and index upkeep, then releases the tables. Idempotent. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true; // new calls are refused; a running reembedAll stops at its next batch
    this.upkeep.clearTimers();
    await this.upkeep.idle();
    await this.locks.chunks.idle();
    await this.locks.memories.idle();
    this.upkeep.clearTimers();
    this.closed = true;
    for (const g of [this.active, this.pending]) {
      if (!g) continue;
      g.chunks.close();
      g.memories.close();
    }
    this.db.close();
  }

  // -------------------------------------------------------------------- helpers

  private assertOpen(): void {
    if (this.closing) throw new Error("VectorStore is closed");
  }

  /** @internal the generations a write goes to (the active one, and a re-embed's new one). */
  writeTargets(): Generation[] {
    return this.pending ? [this.active, this.pending] : [this.active];
  }

  /** @internal */
  activeGeneration(): Generation {
    return this.active;
  }

  private acquire(): Generation {
    const g = this.active;
    g.readers++;
    return g;
  }

  private async withAllLocks<T>(fn: () => Promise<T>): Promise<T> {
    return this.locks.chunks.run(() => this.locks.memories.run(fn));
  }

  /** Vectors for the active embedder, computed before taking a lock (embedding is the slow part of a write). */
  private async embedForActive(texts: string[]): Promise<PreEmbedded | null> {
    const e = this.active.embedder;
    return e ? { embedderId: e.id, vectors: await e.embed(texts) } : null;
  }

  /** Test and bench hook: fold pending writes into the indexes now. */
  async optimizeNow(): Promise<void> {
    this.assertOpen();
    await this.upkeep.run("chunks");
    await this.upkeep.run("memories");
  }
}
