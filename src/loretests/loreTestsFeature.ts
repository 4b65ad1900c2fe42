import type { Feature } from "../core/feature.ts";
import { loreTestRoutes } from "./loreTestRoutes.ts";
import { loreTestJob } from "./loreTestJob.ts";

/** Lore tests: conversation suites run on a scratch copy of a project, their results kept and compared. */
export const loreTestsFeature: Feature = {
  name: "loretests",
  routes: (deps) => [{ mount: "root", plugin: loreTestRoutes(deps) }],
  jobs: (deps) => [loreTestJob(deps)],
};
