import { rowCount, type DocumentBlock } from "./cacheBlocks.ts";
import type { RowsOnDisk } from "./loadProjectCache.ts";

/**
 * The share of a project's rows its tail may reach before the save writes a new rows' file instead (the tail's rows
 * and the rows' file's dead rows, each against the live rows): a load reads the tail's rows besides the file's, and
 * a rows' file keeps its removed rows on disk until the fold. 10 %: a save after a small change writes that change
 * alone, and the files never hold more than ~1.1× the live rows' bytes.
 */
export const TAIL_SHARE = 0.1;
/**
 * Rows the segments after the index part's view may hold before a save writes the part again: a load adds them to
 * the index, ~0.15 ms of CPU a row at 100,000 chunks (bench/snapshot-parts.ts --what tail), so at most ~0.1 s; a
 * part is ~8 MB there, most of a small change's bytes, so a change of a few documents does not write it.
 */
export const PART_LAG_ROWS = 500;
/** Segments per tail at most (each is a JSON header a load parses): past it, a new rows' file. */
export const TAIL_SEGMENTS = 256;

export interface TailPlan {
  /** documents of the view on disk no longer live (or replaced) */
  removed: string[];
  /** live blocks the view on disk does not hold */
  added: DocumentBlock[];
  /** the view after the segment, in the order a load restores it (the index part's row numbers follow it) */
  view: DocumentBlock[];
  /** the tail's rows after the segment */
  tailRows: number;
}

/**
 * What a segment appended to the tail would hold, or null when the save writes a new rows' file instead: none on
 * disk, one without a stamp, or the tail past its share (`share`) or its segments.
 */
export function planTail(onDisk: RowsOnDisk | null, blocks: DocumentBlock[], share = TAIL_SHARE): TailPlan | null {
  if (!onDisk || share <= 0 || onDisk.tail.segments >= TAIL_SEGMENTS) return null;
  const live = new Set(blocks);
  const stored = new Set(onDisk.blocks);
  const kept = onDisk.blocks.filter((b) => live.has(b));
  const removed = onDisk.blocks.filter((b) => !live.has(b)).map((b) => b.documentId);
  const added = blocks.filter((b) => !stored.has(b));
  let liveRows = 0;
  for (const b of blocks) liveRows += rowCount(b);
  let addedRows = 0;
  for (const b of added) addedRows += rowCount(b);
  const tailRows = onDisk.tail.rows + addedRows;
  // rows on disk that no view holds any more: the rows' file's and the tail's, removed or replaced
  const dead = onDisk.base.rows + tailRows - liveRows;
  if (tailRows > share * liveRows || dead > share * liveRows) return null;
  return { removed, added, view: [...kept, ...added], tailRows };
}
