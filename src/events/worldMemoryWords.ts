import type { ServiceContext } from "../core/context.ts";
import { eventWords, setWords, unworded } from "./worldMemoryStore.ts";

/** The scheduler job that fills world memories' words (src/events/eventsFeature.ts). */
export const WORLD_MEMORY_WORDS_JOB = "world-memory-words";

/** Rows filled between two turns of the event loop (~5 ms of CPU): a request waits behind at most one slice. */
const ROWS_PER_SLICE = 500;

/**
 * Fills the words of world memories written before migration 037 (and of an event whose text a pack changed), so a
 * turn ranks them from the covering index. In slices, each its own transaction, yielding between them; the rows
 * left are an index of their own (world_memories_unworded), so a restart resumes where it stopped and a run with
 * nothing left is one empty index read. A turn meanwhile reads an unfilled row's text from its event: the ranking is
 * the same either way, only its cost differs.
 */
export async function fillWorldMemoryWords(ctx: Pick<ServiceContext, "db">, signal?: AbortSignal): Promise<{ filled: number }> {
  let filled = 0;
  const fill = ctx.db.transaction((rows: ReturnType<typeof unworded>) => {
    // the slice comes in event order (the index's): each event's words are made once
    let eventId = "";
    let words = "";
    for (const r of rows) {
      if (r.event_id !== eventId) ((eventId = r.event_id), (words = eventWords(r.type, r.description)));
      setWords(ctx.db, r.r, words);
    }
  });
  for (;;) {
    if (signal?.aborted) break;
    const rows = unworded(ctx.db, ROWS_PER_SLICE);
    if (!rows.length) break;
    fill(rows);
    filled += rows.length;
    // a pause, not only a yield: a big world's fill (1M rows, ~10 s of CPU) leaves most of a core to the requests
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { filled };
}
