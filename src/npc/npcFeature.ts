import type { Feature } from "../core/feature.ts";
import { npcRoutes } from "./npcRoutes.ts";
import { purgeErasedMemories } from "./memory/tombstones.ts";

/** POST /v1/npc/interact, and the purge of erased players' memory vectors. */
export const npcFeature: Feature = {
  name: "npc",
  routes: (deps) => [{ mount: "v1", plugin: npcRoutes(deps) }],
  jobs: (deps) => [
    // Vectors of players erased from the CLI (which never writes LanceDB) are purged here.
    { name: "memory-purge", schedule: "0 * * * * *", runOnStart: true, run: (signal) => purgeErasedMemories(deps, { signal }) },
  ],
};
