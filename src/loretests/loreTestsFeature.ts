import type { Feature } from "../core/feature.ts";
import { loreTestRoutes } from "./loreTestRoutes.ts";
import { loreTestJob } from "./loreTestJob.ts";
import { recordingRoutes } from "./recording/recordingRoutes.ts";

/** Lore tests: conversation suites run on a scratch copy of a project, their results kept and compared; real conversations recorded as candidates. */
export const loreTestsFeature: Feature = {
  name: "loretests",
  routes: (deps) => [
    { mount: "root", plugin: loreTestRoutes(deps) },
    { mount: "root", plugin: recordingRoutes(deps) },
  ],
  jobs: (deps) => [loreTestJob(deps)],
};
