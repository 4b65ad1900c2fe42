import type { ChunkRow } from "./rows.ts";

/** The project vector cache's options and defaults, and the shapes of what it returns (ProjectVectorCache.ts). */

/** A chunk as the vector cache returns it: everything but its text (SQLite or LanceDB holds that), and its score. */
export type VectorHit = CachedRow & { score: number };

/** Rows from which a project's cache is searched through an index (bench/scale-retrieval.ts: the exact scan's p99 passes ~5 ms there). */
export const DEFAULT_INDEX_MIN_ROWS = 20_000;
/**
 * Share of the index's lists a search always scans (more only when too few visible rows were found): 10 % of
 * its many small lists gives recall@4 ≥ 0.97 on real MiniLM vectors at 100k rows (bench/ivf-recall.ts)…
 */
export const DEFAULT_PROBE_SHARE = 0.1;
/**
 * …but no more lists than hold about this many rows: past 200,000 rows a fixed share would scan a number of rows
 * growing with the project (100,000 at 1M), where lists that grow as √N keep the closest lists' recall with a
 * near-constant count of rows (bench/ivf-build.ts at 1M; 2 % of the lists there).
 */
export const DEFAULT_PROBE_ROWS = 20_000;

/** The share of the lists a search of a project of `rows` rows probes at least, unless the cache is told one. */
export function probeShareFor(rows: number, probeRows = DEFAULT_PROBE_ROWS): number {
  return Math.min(DEFAULT_PROBE_SHARE, probeRows / rows);
}

/** Candidates per wanted hit that the int8 scan hands to float32 re-scoring (0: none, the int8 ranking as is). */
export const DEFAULT_RESCORE = 4;

export interface CacheOptions {
  /** candidates per hit re-scored in float32; 0: none (and no float32 vectors kept) */
  rescore?: number;
  /** 0: never index */
  indexMinRows?: number;
  probeShare?: number;
  /** lists probed hold at most about this many rows (DEFAULT_PROBE_ROWS) unless probeShare is given */
  probeRows?: number;
  /** rows from which a sparse query is scanned column by column (COLUMN_MIN_ROWS) */
  columnMinRows?: number;
  /** rows the column copy's background build copies between yields (COLUMN_SLICE_ROWS; tests make it small) */
  columnSliceRows?: number;
  /** rows a compaction of the rows' columns copies between yields (COMPACT_SLICE_ROWS; tests make it small) */
  compactSliceRows?: number;
  /** 4: dense rows kept in 4-bit codes when re-scored (cacheBlocks.ts DocumentBlock.packed); 8 (default): int8 */
  rowBits?: 4 | 8;
  /** how long a background build that failed waits before it is tried again (BUILD_RETRY_MS; tests make it 0) */
  buildRetryMs?: number;
}

/** What the cache keeps of a row. */
export type CachedRow = Omit<ChunkRow, "text">;
