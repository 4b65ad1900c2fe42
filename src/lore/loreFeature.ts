import type { Feature } from "../core/feature.ts";
import { loreRoutes } from "./loreRoutes.ts";
import { runIndexer } from "./indexer/indexerJob.ts";

/** The read-only lore API (/v1/lore) and the indexer that chunks and embeds documents. */
export const loreFeature: Feature = {
  name: "lore",
  routes: (deps) => [{ mount: "v1", plugin: loreRoutes(deps) }],
  jobs: (deps) => [{ name: "indexer", schedule: "*/2 * * * * *", runOnStart: true, run: (signal) => runIndexer(deps, signal) }],
};
