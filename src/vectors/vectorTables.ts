import type { Generation, Kind, PreEmbedded } from "./generation.ts";
import type { MemoryAppends } from "./MemoryAppends.ts";
import type { Mutex } from "./Mutex.ts";
import type { ProjectVectorCache } from "./ProjectVectorCache.ts";
import type { MemoryRow } from "./rows.ts";

/** A (project, mind, player) group's rows with their vectors, as stored (not normalised). */
export interface MemoryGroupRead {
  rows: MemoryRow[];
  vectors: ArrayLike<number>[];
}

/**
 * A copy of the memories' vectors kept beside their rows (SQLite's memory_vectors), read at a group's first search
 * instead of LanceDB: LanceDB's filtered read of a group costs ~4.5 ms of CPU at 1,000,000 memories, the copy's a
 * fraction of a millisecond. LanceDB stays the store of record: the copy is written after each of its writes and
 * filled from each of its group reads, and `read` answers null unless the copy holds every memory of the group as it
 * is now, so a missing or outdated copy costs a LanceDB read, never another ranking.
 */
export interface MemorySide {
  read(embedderId: string, dims: number, q: { projectId: string; entityMindId: string; playerId: string }): MemoryGroupRead | null;
  write(embedderId: string, rows: MemoryRow[], vectors: ArrayLike<number>[]): void;
  /** Queued appends of these memories are committed (the side forgets that they were queued: memory_vector_queue). */
  appended?(ids: string[]): void;
}

/** What the vector store's parts (memory index, re-embed) share of it: locks, generations, upkeep. */
export interface VectorTables {
  readonly locks: Record<Kind, Mutex>;
  readonly upkeep: { noteCommit(kind: Kind, rows?: number): void };
  /** new memories' vectors waiting for their commit: every other read or write of the memories table flushes it first */
  readonly appends: MemoryAppends;
  /** throws once close() has begun */
  assertOpen(): void;
  /** the generations a write goes to (the active one, and a re-embed's new one) */
  writeTargets(): Generation[];
  /** the active generation with its reader count raised: the caller lowers it (g.readers--) when done */
  acquire(): Generation;
  /** vectors for the active embedder, computed before taking a lock (embedding is the slow part of a write) */
  embedForActive(texts: string[]): Promise<PreEmbedded | null>;
  /** the memories' vectors copied beside their rows (see MemorySide); null: LanceDB alone */
  memorySide: MemorySide | null;
  /** the project's vector cache of generation g, loaded on first use */
  projectCache(g: Generation, projectId: string): Promise<ProjectVectorCache>;
}
