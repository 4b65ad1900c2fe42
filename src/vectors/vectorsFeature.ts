import type { Feature } from "../core/feature.ts";
import { listProjects } from "../projects/projectService.ts";

/** The vector store's upkeep. */
export const vectorsFeature: Feature = {
  name: "vectors",
  jobs: (deps) => [
    // Loads every project's chunk vectors into memory so no player waits for it (a no-op once loaded).
    {
      name: "vector-cache-warm",
      schedule: "0 0 * * * *",
      runOnStart: true,
      run: async () => ({ rows: await deps.vectors.warm(listProjects(deps).map((p) => p.id)) }),
    },
  ],
};
