import type { Feature } from "../core/feature.ts";
import { npcRoutes } from "./npcRoutes.ts";
import { purgeErasedMemories } from "./memory/tombstones.ts";
import { MEMORY_SUMMARY_JOB, summarisePendingSessions } from "./memory/summarisePending.ts";
import { MindWarmer } from "./warmMinds.ts";
import { fillMemoryVectors, MEMORY_VECTOR_FILL_JOB } from "./memory/memoryVectorFill.ts";
import { MEMORY_VECTOR_REPAIR_JOB, repairMemoryVectors } from "./memory/memoryVectorRepair.ts";
import { SHARED_LORE_WARMUP_JOB, SharedLoreWarmup } from "./sharedLore/sharedLoreWarmup.ts";
import { applyKvForgetRequests } from "../llm/kv/forgetRequestStore.ts";

/** POST /v1/npc/interact, memory summaries after the reply, the purge of erased players' memory vectors, and minds kept warm. */
export const npcFeature: Feature = {
  name: "npc",
  routes: (deps) => [{ mount: "v1", plugin: npcRoutes(deps) }],
  jobs: (deps) => {
    const warmer = new MindWarmer(deps);
    const sharedLore = new SharedLoreWarmup(deps);
    return [
      // Sessions that reached their limit, summarised into memories after the reply; a checkpoint kicks it,
      // the schedule retries failures and the start picks up what a crash left.
      { name: MEMORY_SUMMARY_JOB, schedule: "20 * * * * *", runOnStart: true, run: (signal) => summarisePendingSessions(deps, signal) },
      // Vectors of players erased from the CLI (which never writes LanceDB) are purged here.
      { name: "memory-purge", schedule: "0 * * * * *", runOnStart: true, run: (signal) => purgeErasedMemories(deps, { signal }) },
      // The memories' vectors copied beside their rows once per embedder (an older data folder, after a re-embed).
      { name: MEMORY_VECTOR_FILL_JOB, schedule: "0 */10 * * * *", runOnStart: true, run: (signal) => fillMemoryVectors(deps, { signal }) },
      // Vectors of event memories whose queued append a crash (or a failed commit) lost, written again from SQLite.
      { name: MEMORY_VECTOR_REPAIR_JOB, schedule: "40 * * * * *", runOnStart: true, run: (signal) => repairMemoryVectors(deps, { signal }) },
      // Minds whose static prompt changed (mind, relationships, shared lore, model) are warmed again, debounced.
      { name: "mind-warm", schedule: "*/5 * * * * *", run: async () => warmer.tick() },
      // Every mind's shared-lore choice made ahead of its first turn, once the lore is quiet (at start, after edits).
      { name: SHARED_LORE_WARMUP_JOB, schedule: "*/10 * * * * *", runOnStart: true, run: (signal) => sharedLore.tick(signal) },
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
