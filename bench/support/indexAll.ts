import { indexingPending } from "../../src/lore/documents/documentStore.ts";
import { indexUntilDone } from "../../src/lore/indexer/indexUntilDone.ts";
import type { TestApp } from "../../test/support/testApp.ts";

/**
 * Indexes every pending document before a bench asks its first question. One trigger of the `indexer` job is one
 * tick, which ends after INDEXER_TICK_MS (10 s) between batches of 32 documents; the server's schedule runs the next
 * tick 2 s later, but a bench's app never starts its scheduler, so a world loaded past the first batch stayed half
 * indexed whenever the machine was slow enough for that batch to take 10 s. The three tuning worlds are 41
 * documents: at a load average of 12–27 bench/steer.ts answered most of Reedmouth's questions without the documents
 * past its first 12 (BENCHMARKS.md "Replies in character: the memory summary on short sessions; the steer bench's
 * grounding"). Throws when a document is left pending or failed, so a bench never measures a world it does not have.
 */
export async function indexAll(app: TestApp["app"]): Promise<number> {
  const indexed = await indexUntilDone((name) => app.scheduler.trigger(name));
  const failed = app.ctx.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM documents WHERE status = 'FAILED'").get()?.n ?? 0;
  if (failed || indexingPending(app.ctx.db)) throw new Error(`indexer: ${failed} document(s) failed, ${indexingPending(app.ctx.db) ? "some" : "none"} pending`);
  return indexed;
}
