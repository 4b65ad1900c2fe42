import * as lancedb from "@lancedb/lancedb";
import type { Connection } from "@lancedb/lancedb";
import { mkdir } from "node:fs/promises";
import type { Embedder } from "./Embedder.ts";
import { Mutex } from "./Mutex.ts";
import { documentFilter, projectFilter } from "./filters.ts";
import type { ProjectVectorCache, VectorHit } from "./ProjectVectorCache.ts";
import { ProjectCaches } from "./ProjectCaches.ts";
import { OptimizePolicy } from "./OptimizePolicy.ts";
import { copyBatch } from "./copyBatch.ts";
import { searchVectorHits, searchVectors, type VectorQuery } from "./searchChunks.ts";
import { deleteMemories, memoryAppends, readMemorySlice, searchMemories, upsertMemories } from "./memoryIndex.ts";
import type { AppendTimer, MemoryAppends } from "./MemoryAppends.ts";
import { replaceDocumentsChunks, type DocumentChunks } from "./writeChunks.ts";
import type { MemorySide, VectorTables } from "./vectorTables.ts";
import type { ChunkRow, MemoryRow } from "./rows.ts";
import { TABLE_RE, allIds, createGeneration, documentKey, openGeneration, optimizeTable, readMeta, tableName } from "./generation.ts";
import { writeMeta, type Generation, type Kind, type PreEmbedded } from "./generation.ts";

export type { ChunkRow, MemoryRow, VectorHit, VectorQuery };

export interface VectorStoreOptions {
  /** memory budget of the in-memory project vector caches, in MB (least recently searched evicted past it); 0: none */
  vectorCacheMb?: number;
  /** chunks from which a project is searched through an approximate index (built in the background); 0: never */
  vectorIndexMinChunks?: number;
  /** candidates per hit the int8 scan hands to float32 re-scoring (default 4); 0: the int8 ranking as is */
  vectorRescore?: number;
  /** 4: a dense project's rows in 4-bit codes (half the bytes; see ProjectVectorCache CacheOptions.rowBits); 8 (default): int8 */
  vectorRowBits?: 4 | 8;
  /** appendMemories' window in ms (default 100; 0: a commit each), its rows that commit at once (256), what ends it (tests') */
  memoryAppendWindowMs?: number;
  memoryAppendRows?: number;
  appendTimer?: AppendTimer;
}

/** Rows per batch when copying into a new generation. */
const REEMBED_BATCH = 256;

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
 * were built with is "stale": its `embedderId` is the stored one, vector search
 * returns nothing (lore retrieval keeps its SQLite BM25 half), memory search returns nothing, and new rows are written
 * without vectors, until `reembedAll(embedder)` rebuilds it.
 */
export class VectorStore implements VectorTables {
  readonly locks: Record<Kind, Mutex> = { chunks: new Mutex(), memories: new Mutex() };
  /** During reembedAll: the generation being built; every write goes to it too. */
  private pending: Generation | null = null;
  private readonly caches: ProjectCaches;
  private reembedding = false;
  /** The running re-embed: close() lets it stop at its next batch and clean up before closing the connection. */
  private reembedRun: Promise<void> | null = null;
  closing = false;
  /** the memories' vectors copied beside their SQLite rows (the App sets it); null: every group read from LanceDB */
  memorySide: MemorySide | null = null;
  closed = false;
  /** @internal */
  readonly upkeep = new OptimizePolicy(this);
  /** @internal new memories' vectors waiting for their commit (appendMemories) */
  readonly appends: MemoryAppends;

  private constructor(
    private readonly dir: string,
    private readonly db: Connection,
    private active: Generation,
    opts: VectorStoreOptions,
  ) {
    this.caches = new ProjectCaches(Math.max(0, opts.vectorCacheMb ?? 0) * 1024 * 1024, { indexMinRows: opts.vectorIndexMinChunks, rescore: opts.vectorRescore, rowBits: opts.vectorRowBits }, dir);
    this.appends = memoryAppends(this, { windowMs: opts.memoryAppendWindowMs, maxRows: opts.memoryAppendRows, timer: opts.appendTimer });
  }

  static async open(dir: string, embedder: Embedder, opts: VectorStoreOptions = {}): Promise<VectorStore> {
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
    const store = new VectorStore(dir, db, active, opts);
    await store.upkeep.measure(active);
    return store;
  }

  /** The embedder the searchable tables were built with. */
  get embedderId(): string {
    return this.active.embedderId;
  }

  /** The embedder of the searchable tables (null while they are stale): a copy of this store opens with it. */
  get embedder(): Embedder | null {
    return this.active.embedder;
  }

  /** True while reembedAll is building new tables. */
  get reembedInProgress(): boolean {
    return this.reembedding;
  }

  // ---------------------------------------------------------------- lore chunks

  async replaceDocumentChunks(projectId: string, documentId: string, rows: ChunkRow[]): Promise<void> {
    if (!rows.length) return this.deleteDocument(projectId, documentId);
    return replaceDocumentsChunks(this, this.caches, projectId, [{ documentId, rows }]);
  }

  /** Several documents of one project at once (a bulk import): one embedding call, two LanceDB commits. */
  replaceDocumentsChunks(projectId: string, docs: DocumentChunks[]): Promise<void> {
    return replaceDocumentsChunks(this, this.caches, projectId, docs);
  }

  async deleteDocument(projectId: string, documentId: string): Promise<void> {
    this.assertOpen();
    const where = documentFilter(projectId, documentId);
    await this.locks.chunks.run(async () => {
      for (const g of this.writeTargets()) {
        await g.chunkGate.write(async () => {
          this.caches.invalidate(g, projectId); // under the gate, before the commit (writeChunks.ts says why)
          await g.chunks.delete(where);
          g.vectorCache.get(projectId)?.deleteDocument(documentId);
          this.caches.invalidate(g, projectId);
        });
        g.documents.delete(documentKey(projectId, documentId));
      }
    });
    this.upkeep.noteCommit("chunks");
  }

  async deleteProject(projectId: string): Promise<void> {
    this.assertOpen();
    const where = projectFilter(projectId);
    await this.appends.flush(); // the project's queued memories land before its delete
    for (const kind of ["chunks", "memories"] as const) {
      await this.locks[kind].run(async () => {
        for (const g of this.writeTargets()) {
          if (kind === "chunks") {
            await g.chunkGate.write(async () => {
              this.caches.invalidate(g, projectId); // under the gate, before the commit (writeChunks.ts says why)
              await g.chunks.delete(where);
              g.vectorCache.get(projectId)?.stop(); // and any index build it has running
              g.vectorCache.delete(projectId);
              this.caches.invalidate(g, projectId); // with no cache loaded: every file of the project's rows goes
            });
            const prefix = documentKey(projectId, "");
            for (const key of g.documents) if (key.startsWith(prefix)) g.documents.delete(key);
          } else await g.memories.delete(where).then(() => g.memoryGroups.deleted({ projectId }));
        }
      });
      this.upkeep.noteCommit(kind);
    }
  }

  /**
   * The vector half alone: the n chunks of a project most similar to `query`
   * among those whose tags meet `tags`, best first, text included (read from
   * LanceDB for the hits; the runtime takes searchVectorHits and SQLite's text).
   */
  searchVectors(q: VectorQuery): Promise<ChunkRow[]> {
    return searchVectors(this, q);
  }

  /** As searchVectors, from memory alone: the hits without their text, with their cosine score. */
  searchVectorHits(q: VectorQuery): Promise<VectorHit[]> {
    return searchVectorHits(this, q);
  }

  /** Loads the projects' vector caches ahead of their first search (the server does it at boot), while the budget allows. */
  async warm(projectIds: string[]): Promise<number> {
    this.assertOpen();
    const g = this.acquire();
    try {
      return g.embedder ? await this.caches.warm(g, projectIds) : 0;
    } finally {
      g.readers--;
    }
  }

  /** Memory the active generation's project caches hold, in bytes (their estimate), how many projects are loaded, and from where. */
  cacheUsage(): { bytes: number; projects: number; loadsFrom: { snapshot: number; lance: number } } {
    return { bytes: this.caches.bytes(this.active), projects: this.active.vectorCache.size, loadsFrom: { ...this.caches.loadsFrom } };
  }

  /** Waits until every vector cache snapshot being written is on disk or dropped (tests and benches). */
  snapshotsIdle(): Promise<void> {
    return this.caches.idle();
  }

  /** @internal the project's vector cache for generation g, loaded from LanceDB on first use */
  projectCache(g: Generation, projectId: string): Promise<ProjectVectorCache> {
    return this.caches.get(g, projectId);
  }

  async countChunks(projectId?: string): Promise<number> {
    this.assertOpen();
    return this.active.chunks.countRows(projectId === undefined ? undefined : projectFilter(projectId));
  }

  // ------------------------------------------------------------------- memories

  /** New memories (ids never written before) in one commit with other writes' a short window later (MemoryAppends). */
  appendMemories(rows: MemoryRow[]): Promise<void> {
    this.assertOpen();
    return this.appends.append(rows);
  }

  /** `fresh`: every id is new (never written before), so the rows are appended rather than merged on id. */
  upsertMemories(rows: MemoryRow[], opts: { fresh?: boolean } = {}): Promise<void> {
    return upsertMemories(this, rows, opts.fresh ?? false);
  }

  deleteMemories(filter: { projectId: string; playerId?: string; entityMindId?: string; ids?: string[] }): Promise<void> {
    return deleteMemories(this, filter);
  }

  /** Memories of this player with this mind, most similar to `query` first; score is cosine similarity. */
  searchMemories(q: { projectId: string; entityMindId: string; playerId: string; query: string; k: number }): Promise<(MemoryRow & { score: number })[]> {
    return searchMemories(this, q);
  }

  /** A slice of the active generation's memories with their vectors, in scan order (see readMemorySlice). */
  readMemorySlice(offset: number, limit: number): Promise<{ embedderId: string; rows: MemoryRow[]; vectors: ArrayLike<number>[]; scanned: number } | null> {
    return readMemorySlice(this, offset, limit);
  }

  // ------------------------------------------------------------------ re-embed

  /**
   * Rebuilds every table with `newEmbedder` while searches keep answering from
   * the current tables, then swaps. Writes made meanwhile go to both sets. The
   * caller keeps ownership of both embedders (nothing is disposed here).
   */
  reembedAll(newEmbedder: Embedder, onProgress?: (done: number, total: number) => void): Promise<void> {
    if (this.closing) return Promise.reject(new Error("VectorStore is closed"));
    if (this.reembedding) return Promise.reject(new Error("A re-embedding is already running"));
    const run = this.runReembed(newEmbedder, onProgress).finally(() => (this.reembedRun = null));
    this.reembedRun = run;
    return run;
  }

  private async runReembed(newEmbedder: Embedder, onProgress?: (done: number, total: number) => void): Promise<void> {
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
          this.assertOpen();
          await copyBatch(this.locks[kind], kind, old, target, batch);
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

  /** Drops a replaced generation once the searches still reading it have finished. */
  private async retire(g: Generation): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (g.readers > 0 && Date.now() < deadline) await Bun.sleep(10);
    await this.dropGeneration(g);
  }

  private async dropGeneration(g: Generation): Promise<void> {
    for (const cache of g.vectorCache.values()) cache.stop();
    this.caches.dropGeneration(g);
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
    await this.appends.flush(); // the window's appends are committed, not lost
    await this.reembedRun?.catch(() => {});
    await this.upkeep.idle();
    await this.locks.chunks.idle();
    await this.locks.memories.idle();
    await this.caches.flush(this.active); // the next start reads each project's cache back in one go
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

  /** @internal */
  assertOpen(): void {
    if (this.closing) throw new Error("VectorStore is closed");
  }

  /** @internal the generations a write goes to (the active one, and a re-embed's new one). */
  writeTargets(): Generation[] {
    return this.pending ? [this.active, this.pending] : [this.active];
  }

  /** @internal */ activeGeneration(): Generation {
    return this.active;
  }

  /** @internal */ acquire(): Generation {
    const g = this.active;
    g.readers++;
    return g;
  }

  private async withAllLocks<T>(fn: () => Promise<T>): Promise<T> {
    return this.locks.chunks.run(() => this.locks.memories.run(fn));
  }

  /** @internal vectors for the active embedder, computed before taking a lock (embedding is the slow part of a write) */
  async embedForActive(texts: string[]): Promise<PreEmbedded | null> {
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
