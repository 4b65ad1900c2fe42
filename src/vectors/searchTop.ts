import { fullScore, rowChunkIndex, rowId, rowLocation, rowName, rowTags, TopN } from "./cacheBlocks.ts";
import type { VectorHit } from "./cacheOptions.ts";
import type { PreparedQuery } from "./preparedQuery.ts";

/**
 * A search's candidates and their re-scoring's arrays, kept from one search to the next while the size asked for
 * stays the same (a search runs synchronously from start to end: one at a time uses them). Why: each search made
 * them, and an object a candidate, and dropped them (BENCHMARKS.md "the index's tail at 1M").
 */
export class SearchTop {
  private top: { best: TopN; score: Float64Array; order: Int32Array } | null = null;

  /** The candidates of a search keeping `size`, empty (even if the last search threw half-way: a snapshot file's read cut short). */
  candidates(size: number): TopN {
    if (this.top?.best.n !== size) this.top = { best: new TopN(size), score: new Float64Array(size), order: new Int32Array(size) };
    this.top.best.reset();
    return this.top.best;
  }

  /** The n best of the candidates, re-scored from their float32 vectors when `rescore` (their int8 score otherwise), best first. */
  hits(p: PreparedQuery, rescore: boolean, n: number, projectId: string): VectorHit[] {
    const { best, score, order } = this.top!;
    const m = best.length;
    for (let i = 0; i < m; i++) {
      score[i] = rescore ? (fullScore(best.docAt(i), best.rowAt(i), p) ?? best.scoreAt(i)) : best.scoreAt(i);
      order[i] = i;
    }
    // re-scored, best first, equal scores in the int8 order: an insertion sort, as the float32 order is nearly the
    // int8 one (a few swaps)
    for (let i = 1; i < m; i++) {
      const o = order[i];
      const s = score[o];
      let j = i;
      for (; j > 0 && score[order[j - 1]] < s; j--) order[j] = order[j - 1];
      order[j] = o;
    }
    const hits: VectorHit[] = [];
    for (let i = 0; i < Math.min(m, n); i++) {
      const doc = best.docAt(order[i]);
      const row = best.rowAt(order[i]);
      hits.push({
        id: rowId(doc, row),
        projectId,
        documentId: doc.documentId,
        documentName: rowName(doc, row),
        chunkIndex: rowChunkIndex(doc, row),
        tags: [...rowTags(doc, row)], // a copy: the cache shares one array among a document's rows
        locationId: rowLocation(doc, row),
        score: score[order[i]],
      });
    }
    best.reset();
    return hits;
  }
}
