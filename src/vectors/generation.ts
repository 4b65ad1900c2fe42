import * as lancedb from "@lancedb/lancedb";
import type { Connection, Table } from "@lancedb/lancedb";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Embedder } from "./Embedder.ts";
import { ReadWriteLock } from "./Mutex.ts";
import { chunkSchema, memorySchema, toArrowTable } from "./schemas.ts";
import type { ProjectVectorCache } from "./ProjectVectorCache.ts";
import { MemoryGroups } from "./memoryGroups.ts";

/** Generations: the set of LanceDB tables one embedder built, their metadata file, creation and opening. */

export type Kind = "chunks" | "memories";

/** One set of tables built by one embedder. A re-embed builds generation n+1 beside n, then swaps. */
export interface Generation {
  gen: number;
  chunks: Table;
  memories: Table;
  embedderId: string;
  dims: number;
  /** null when the tables were built by an embedder this process does not have ("stale"). */
  embedder: Embedder | null;
  /** Searches in flight; the old generation is dropped only once they finish. */
  readers: number;
  /**
   * A hybrid search is two queries; a chunk commit landing between them would let the
   * fused result mix two versions of a document. Searches share this gate, chunk commits
   * take it exclusively (commit only: embedding happens outside).
   */
  chunkGate: ReadWriteLock;
  /**
   * (projectId, documentId) pairs that have chunks in this generation. This process is the
   * only writer, so the set is exact; it lets a first-time index skip the delete (a delete
   * costs ~20 ms even when it matches nothing, about as much as the write itself).
   */
  documents: Set<string>;
  /**
   * Per project, the chunk vectors in memory for the vector half of a search (see
   * ProjectVectorCache); loaded at a project's first search, kept in step by every write.
   */
  vectorCache: Map<string, ProjectVectorCache>;
  /** recently searched (project, mind, player) memory groups with their vectors (see MemoryGroups) */
  memoryGroups: MemoryGroups;
}

export interface Meta {
  format: 1;
  generation: number;
  embedderId: string;
  dims: number;
}

export const META_FILE = "lorehold-vectors.json";
export const tableName = (kind: Kind, gen: number) => `${kind}_g${gen}`;
export const TABLE_RE = /^(chunks|memories)_g(\d+)$/;

// Versions a search might still be reading are kept this long after they stop being current
// (searches take milliseconds; a longer window only keeps compacted-away files on disk).
const KEEP_OLD_VERSIONS_MS = 60_000;

export interface PreEmbedded {
  embedderId: string;
  vectors: Float32Array[];
}

export async function vectorsFor(g: Generation, texts: string[], pre: PreEmbedded | null): Promise<Float32Array[] | null> {
  if (!g.embedder) return null;
  if (pre && pre.embedderId === g.embedder.id) return pre.vectors;
  return g.embedder.embed(texts);
}

/** Set key of a document; NUL cannot occur in ids (sqlString refuses it), so the pair is unambiguous. */
export function documentKey(projectId: string, documentId: string): string {
  return `${projectId}\u0000${documentId}`;
}

export function asData(g: Generation, kind: Kind, records: Record<string, unknown>[]) {
  return toArrowTable(kind === "chunks" ? chunkSchema(g.dims) : memorySchema(g.dims), records) ?? records;
}

export async function optimizeTable(t: Table): Promise<void> {
  await t.optimize({ cleanupOlderThan: new Date(Date.now() - KEEP_OLD_VERSIONS_MS) });
}

export async function allIds(t: Table): Promise<string[]> {
  const rows = await t.query().select(["id"]).toArray();
  return rows.map((r) => String(r.id));
}

// No ANN (IVF_PQ / HNSW) index: brute-force cosine over the rows left after the
// projectId/tags prefilter (BTREE + LABEL_LIST indexes) is exact, and the vector half stays at
// p50 ~20 ms at 10k chunks and ~70 ms at 100k on 2 cores (bench/retrieval.ts).
// No full-text index either: lore's text half is BM25 in SQLite FTS5 (src/retrieval/hybridSearch.ts). An IVF_PQ
// build took 13 s on 10k rows on 2 cores and loses recall under selective filters.
// Revisit (background build) when a deployment passes ~100k chunks.
export async function createGeneration(db: Connection, gen: number, embedderId: string, dims: number, embedder: Embedder | null): Promise<Generation> {
  // Drop-then-create rather than mode "overwrite", which logs a warning for every new table.
  const existing = new Set(await db.tableNames());
  for (const kind of ["chunks", "memories"] as const) if (existing.has(tableName(kind, gen))) await db.dropTable(tableName(kind, gen));
  const chunks = await db.createEmptyTable(tableName("chunks", gen), chunkSchema(dims));
  // Scalar indexes make the projectId/tags prefilter an index lookup instead of a scan
  // (vector search on 30k rows: ~50 ms → ~13 ms); id speeds up merge-inserts and re-embed copies.
  await chunks.createIndex("id", { config: lancedb.Index.btree() });
  await chunks.createIndex("projectId", { config: lancedb.Index.btree() });
  await chunks.createIndex("documentId", { config: lancedb.Index.btree() });
  await chunks.createIndex("tags", { config: lancedb.Index.labelList() });
  const memories = await db.createEmptyTable(tableName("memories", gen), memorySchema(dims));
  await memories.createIndex("id", { config: lancedb.Index.btree() });
  await memories.createIndex("projectId", { config: lancedb.Index.btree() });
  await memories.createIndex("playerId", { config: lancedb.Index.btree() });
  return { gen, chunks, memories, embedderId, dims, embedder, readers: 0, chunkGate: new ReadWriteLock(), documents: new Set(), vectorCache: new Map(), memoryGroups: new MemoryGroups(dims) };
}

export async function openGeneration(db: Connection, meta: Meta, embedder: Embedder | null): Promise<Generation> {
  const names = new Set(await db.tableNames());
  if (!names.has(tableName("chunks", meta.generation)) || !names.has(tableName("memories", meta.generation))) {
    // The metadata survived but the tables did not (deleted by hand?): start empty rather than refuse to boot.
    console.error(`lorehold: vector tables of generation ${meta.generation} are missing; starting with empty ones`);
    return createGeneration(db, meta.generation, meta.embedderId, meta.dims, embedder);
  }
  const chunks = await db.openTable(tableName("chunks", meta.generation));
  const documents = new Set<string>();
  for await (const batch of chunks.query().select(["projectId", "documentId"])) {
    const p = batch.getChild("projectId")!;
    const d = batch.getChild("documentId")!;
    for (let i = 0; i < batch.numRows; i++) documents.add(documentKey(String(p.get(i)), String(d.get(i))));
  }
  return {
    gen: meta.generation,
    chunks,
    memories: await db.openTable(tableName("memories", meta.generation)),
    embedderId: meta.embedderId,
    dims: meta.dims,
    embedder,
    readers: 0,
    chunkGate: new ReadWriteLock(),
    documents,
    vectorCache: new Map(),
    memoryGroups: new MemoryGroups(meta.dims),
  };
}

export async function readMeta(dir: string): Promise<Meta | null> {
  let text: string;
  try {
    text = await readFile(join(dir, META_FILE), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  const m = JSON.parse(text) as Meta;
  if (m.format !== 1 || !Number.isInteger(m.generation) || typeof m.embedderId !== "string" || !Number.isInteger(m.dims)) {
    throw new Error(`Unreadable vector store metadata in ${join(dir, META_FILE)}`);
  }
  return m;
}

/** Write-then-rename: the swap to a new generation is a single atomic step on disk. */
export async function writeMeta(dir: string, meta: Meta): Promise<void> {
  const path = join(dir, META_FILE);
  await writeFile(`${path}.tmp`, JSON.stringify(meta, null, 2) + "\n");
  await rename(`${path}.tmp`, path);
}
