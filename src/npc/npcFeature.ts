import type { Feature } from "../core/feature.ts";
import { npcRoutes } from "./npcRoutes.ts";
import { purgeErasedMemories } from "./memory/tombstones.ts";
import { MindWarmer } from "./warmMinds.ts";
import { applyKvForgetRequests } from "../llm/kv/forgetRequestStore.ts";

/** POST /v1/npc/interact, the purge of erased players' memory vectors, and minds kept warm. */
export const npcFeature: Feature = {
  name: "npc",
  routes: (deps) => [{ mount: "v1", plugin: npcRoutes(deps) }],
  jobs: (deps) => {
    const warmer = new MindWarmer(deps);
    return [
      // Vectors of players erased from the CLI (which never writes LanceDB) are purged here.
      { name: "memory-purge", schedule: "0 * * * * *", runOnStart: true, run: (signal) => purgeErasedMemories(deps, { signal }) },
      // Minds whose static prompt changed (mind, relationships, shared lore, model) are warmed again, debounced.
      { name: "mind-warm", schedule: "*/5 * * * * *", run: async () => warmer.tick() },
      // Players erased by the CLI (another process): their conversations leave this server's sequences too.
      {
        name: "kv-forget",
        schedule: "*/2 * * * * *",
        runOnStart: true,
        run: async () => ({ applied: applyKvForgetRequests(deps.db, deps.llm ? (m) => deps.llm!.forgetConversations(m) : null) }),
      },
    ];
  },
};
