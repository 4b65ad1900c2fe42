import type { AppContext } from "../../core/context.ts";
import { nowIso } from "../../core/context.ts";
import {
  forgetOtherEmbeddersFills,
  markMemoryVectorsFilled,
  memoryVectorFillOffset,
  memoryVectorsFilled,
  saveMemoryVectorFillOffset,
  writeMemoryVectors,
} from "./memoryVectorStore.ts";

export const MEMORY_VECTOR_FILL_JOB = "memory-vector-fill";

/**
 * Rows read from LanceDB at a time: ~10 ms of LanceDB's CPU and ~1.5 MB of vectors at 384 dims, dropped before the
 * next slice is read, so the fill's memory is a slice's whatever the table's size.
 */
const READ_SLICE = 1024;
/** Rows written to SQLite between two turns of the event loop: ~4 ms of writes (0.06 ms a row at 1M memories). */
const WRITE_SLICE = 64;

export interface FillOptions {
  signal?: AbortSignal;
  /**
   * Idle time after each slice, as a share of the slice's own work (LanceDB's read and the SQLite writes, not the
   * requests served between them): the fill is a background copy and gives way to requests (1: at most about half a
   * core). 0 in tests.
   */
  yieldShare?: number;
  /** Stops after this many slices, as a crash would (a test's way to stop mid-fill); the progress mark stays. */
  maxSlices?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Copies the memories' vectors from LanceDB beside their SQLite rows once per embedder (a data folder from before the
 * copy existed, or a re-embed's new embedder), so a pair's first turn under enhanced retrieval reads its group from
 * SQLite. Afterwards every LanceDB write copies its own rows, so the job is a one-row check. A group the copy misses
 * (a crash between LanceDB's commit and the copy's, rows a slice skipped) is read from LanceDB at its first search and
 * copied then.
 * The copy goes a slice at a time, read and dropped (READ_SLICE), with the event loop let go between writes and an
 * idle pause after each slice; the offset of the next slice is saved after each, so a stop or a crash resumes where
 * it was (what is copied stays copied).
 */
export async function fillMemoryVectors(
  ctx: Pick<AppContext, "db" | "vectors" | "clock">,
  opts: FillOptions = {},
): Promise<{ copied: number; embedder: string | null; done: boolean; from: number }> {
  const embedderId = ctx.vectors.embedderId;
  const { signal, yieldShare = 1, maxSlices = Infinity } = opts;
  if (!ctx.vectors.embedder || ctx.vectors.reembedInProgress || memoryVectorsFilled(ctx.db, embedderId)) return { copied: 0, embedder: null, done: false, from: 0 };
  forgetOtherEmbeddersFills(ctx.db, embedderId);
  const from = memoryVectorFillOffset(ctx.db, embedderId);
  let offset = from;
  let copied = 0;
  for (let slices = 0; slices < maxSlices; slices++) {
    // a stop between slices: the mark says where to go on (the scheduler's next run, or the next start)
    if (signal?.aborted || ctx.vectors.reembedInProgress) return { copied, embedder: null, done: false, from };
    let work = performance.now();
    const slice = await ctx.vectors.readMemorySlice(offset, READ_SLICE);
    work = performance.now() - work;
    if (!slice || slice.embedderId !== embedderId) return { copied, embedder: null, done: false, from };
    for (let i = 0; i < slice.rows.length; i += WRITE_SLICE) {
      const t0 = performance.now();
      copied += writeMemoryVectors(ctx.db, embedderId, slice.rows.slice(i, i + WRITE_SLICE), slice.vectors.slice(i, i + WRITE_SLICE));
      work += performance.now() - t0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    offset += slice.scanned;
    if (slice.scanned < READ_SLICE) {
      markMemoryVectorsFilled(ctx.db, embedderId, nowIso(ctx));
      return { copied, embedder: embedderId, done: true, from };
    }
    saveMemoryVectorFillOffset(ctx.db, embedderId, offset, nowIso(ctx));
    if (yieldShare > 0) await sleep(work * yieldShare);
  }
  return { copied, embedder: null, done: false, from };
}
