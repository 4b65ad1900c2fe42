import type { AppContext } from "../../core/context.ts";
import { nowIso } from "../../core/context.ts";
import { forgetOtherEmbeddersFills, markMemoryVectorsFilled, memoryVectorsFilled } from "./memoryVectorStore.ts";

export const MEMORY_VECTOR_FILL_JOB = "memory-vector-fill";

/**
 * Copies the memories' vectors from LanceDB beside their SQLite rows once per embedder (a data folder from before the
 * copy existed, or a re-embed's new embedder), so a pair's first turn under enhanced retrieval reads its group from
 * SQLite. Afterwards every LanceDB write copies its own rows, so the job is a one-row check. A group the copy misses
 * (a crash between LanceDB's commit and the copy's) is read from LanceDB at its first search and copied then.
 */
export async function fillMemoryVectors(ctx: Pick<AppContext, "db" | "vectors" | "clock">, signal?: AbortSignal): Promise<{ copied: number; embedder: string | null }> {
  const embedderId = ctx.vectors.embedderId;
  if (!ctx.vectors.embedder || ctx.vectors.reembedInProgress || memoryVectorsFilled(ctx.db, embedderId)) return { copied: 0, embedder: null };
  forgetOtherEmbeddersFills(ctx.db, embedderId);
  const done = await ctx.vectors.copyMemoriesToSide(signal);
  if (!done || done.embedderId !== embedderId) return { copied: done?.rows ?? 0, embedder: null };
  markMemoryVectorsFilled(ctx.db, embedderId, nowIso(ctx));
  return { copied: done.rows, embedder: embedderId };
}
