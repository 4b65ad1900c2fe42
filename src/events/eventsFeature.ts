import type { Feature } from "../core/feature.ts";
import { eventRoutes } from "./eventRoutes.ts";
import { GOSSIP_JOB, spreadGossip } from "./gossip.ts";
import { forgetIdempotencyKeys } from "./recordEvents.ts";
import { fillWorldMemoryWords, WORLD_MEMORY_WORDS_JOB } from "./worldMemoryWords.ts";

/**
 * /v1/events and /v1/npc/{mindId}/react: what happens in the world, who saw it, and minds that speak first;
 * the gossip job that spreads world memories along relationships. (Its admin routes mount with /admin/v1.)
 */
export const eventsFeature: Feature = {
  name: "events",
  routes: (deps) => [{ mount: "v1", plugin: eventRoutes(deps) }],
  jobs: (deps) => [
    // runOnStart: a restart picks up the hops that came due while the server was down.
    { name: GOSSIP_JOB, schedule: "*/30 * * * * *", runOnStart: true, run: (signal) => spreadGossip(deps, { signal }) },
    // runOnStart: a world from before the words were kept is filled in the background from its first minute
    { name: WORLD_MEMORY_WORDS_JOB, schedule: "0 * * * * *", runOnStart: true, run: (signal) => fillWorldMemoryWords(deps, signal) },
    { name: "event-idempotency-sweep", schedule: "0 17 * * * *", run: async () => ({ deleted: forgetIdempotencyKeys(deps) }) },
  ],
};
