import { existsSync } from "node:fs";
import { restoreInto, type SnapshotFile } from "./cacheSnapshot.ts";
import { indexPartPath, indexPartStamp, readIndexPart } from "./indexPart.ts";
import type { ProjectVectorCache } from "./ProjectVectorCache.ts";
import type { TailSegment } from "./rowsTail.ts";

/**
 * Fills an empty cache from a rows' file and its tail's segments (rowsTail.ts), with the index of the part beside
 * them when the part lists one of their views: the documents of that view restored, the index decoded over them
 * (its row numbers are that view's), then the later segments applied as writes are, the index kept in step with
 * each. Why not a part per save: a part is every row's list entry and every centroid (~8 MB at 100,000 chunks), most
 * of what a small change would write; the index after a few segments applied at load is the one the server had,
 * since a write adds rows to the index's nearest lists alone, without training again. Adding rows to the index
 * costs the load ~0.15 ms of CPU a row at 100,000 chunks, so a save writes the part again once the segments after
 * its view hold more than PART_LAG_ROWS (ProjectCaches).
 *
 * `final`: the rows with every segment applied (readTail). A part that lists none of the views, or fails its
 * checks, is not used: the rows load, the index is trained again, and `drop` says the caller should delete it.
 */
export function restoreRows(cache: ProjectVectorCache, rowsPath: string, base: SnapshotFile, final: SnapshotFile, segments: TailSegment[]): { indexed: boolean; drop: boolean; lag: number } {
  if (segments.length === 0) {
    const { part, found } = readIndexPart(rowsPath, base.header);
    const indexed = restoreInto(cache, base, part);
    return { indexed, drop: found && !indexed, lag: 0 };
  }
  const stamp = indexPartStamp(rowsPath);
  const k = stamp === null ? -1 : [base.header.stamp, ...segments.map((s) => s.stamp)].indexOf(stamp);
  if (k < 0) {
    restoreInto(cache, final, null);
    return { indexed: false, drop: existsSync(indexPartPath(rowsPath)), lag: 0 };
  }
  const view = new Map(base.docs.map((d) => [d.documentId, d]));
  for (const s of segments.slice(0, k)) {
    for (const id of s.removed) view.delete(id);
    for (const d of s.docs) view.set(d.documentId, d);
  }
  const header = { ...final.header, stamp: stamp!, rows: k === 0 ? base.header.rows : segments[k - 1].rows };
  const { part, found } = readIndexPart(rowsPath, header);
  if (!part) {
    restoreInto(cache, final, null);
    return { indexed: false, drop: found, lag: 0 };
  }
  const indexed = restoreInto(cache, { header, docs: [...view.values()], index: null }, part);
  let lag = 0;
  for (const s of segments.slice(k)) {
    for (const d of s.docs) lag += d.n;
    for (const id of s.removed) cache.deleteDocument(id);
    cache.restoreDocuments(s.docs);
  }
  cache.dirty = false;
  return { indexed, drop: found && !indexed, lag };
}
