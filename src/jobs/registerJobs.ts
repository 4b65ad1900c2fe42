import type { Scheduler } from "./Scheduler.ts";
import type { AppContext } from "../app/App.ts";
import { runIndexer } from "../lore/indexer/indexerJob.ts";

/** Every background job of the server, by name (the admin API lists and triggers them). */
export function registerJobs(s: Scheduler, ctx: AppContext): void {
  s.register({ name: "indexer", schedule: "*/2 * * * * *", runOnStart: true, run: (signal) => runIndexer(ctx, signal) });
}
