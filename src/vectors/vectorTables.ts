import type { Generation, Kind, PreEmbedded } from "./generation.ts";
import type { Mutex } from "./Mutex.ts";
import type { ProjectVectorCache } from "./ProjectVectorCache.ts";

/** What the vector store's parts (memory index, re-embed) share of it: locks, generations, upkeep. */
export interface VectorTables {
  readonly locks: Record<Kind, Mutex>;
  readonly upkeep: { noteCommit(kind: Kind, rows?: number): void };
  /** throws once close() has begun */
  assertOpen(): void;
  /** the generations a write goes to (the active one, and a re-embed's new one) */
  writeTargets(): Generation[];
  /** the active generation with its reader count raised: the caller lowers it (g.readers--) when done */
  acquire(): Generation;
  /** vectors for the active embedder, computed before taking a lock (embedding is the slow part of a write) */
  embedForActive(texts: string[]): Promise<PreEmbedded | null>;
  /** the project's vector cache of generation g, loaded on first use */
  projectCache(g: Generation, projectId: string): Promise<ProjectVectorCache>;
}
