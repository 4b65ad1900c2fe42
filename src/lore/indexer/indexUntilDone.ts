/**
 * Runs the `indexer` job tick after tick until one indexes nothing, for an app whose scheduler is not started (the
 * lore-test scratch app, the benches): one tick works for at most INDEXER_TICK_MS (indexerJob.ts) and leaves the
 * rest to the next tick, which only a started scheduler runs. `trigger` is the scheduler's; returns the documents
 * indexed. A tick that failed, or failed a document, ends the loop (the failure is the job's status to read).
 */
export async function indexUntilDone(trigger: (name: string) => Promise<unknown>): Promise<number> {
  let indexed = 0;
  for (;;) {
    const status = (await trigger("indexer")) as { lastError?: string | null; lastResult?: { indexed?: number; failed?: number } | null } | null;
    const n = status?.lastError ? 0 : (status?.lastResult?.indexed ?? 0);
    if (n === 0 || status?.lastResult?.failed) return indexed + n;
    indexed += n;
  }
}
