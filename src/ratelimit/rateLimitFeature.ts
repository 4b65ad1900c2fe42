import type { Feature } from "../core/feature.ts";

/** The in-memory rate limiter's pruning of idle windows. */
export const rateLimitFeature: Feature = {
  name: "ratelimit",
  jobs: (deps) => [{ name: "rate-limit-prune", schedule: "30 * * * * *", run: async () => deps.limiter.prune() }],
};
