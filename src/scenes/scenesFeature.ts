import type { Feature } from "../core/feature.ts";
import { sceneRoutes } from "./sceneRoutes.ts";
import { SceneRuns } from "./SceneRuns.ts";
import { expireIdleScenes, type SceneDeps } from "./sceneService.ts";

export const SCENE_EXPIRY_JOB = "scene-expiry";

/** One registry of running turns per App: its routes and its expiry job share it. */
const runsByDeps = new WeakMap<object, SceneRuns>();
function sceneDeps(deps: Parameters<NonNullable<Feature["routes"]>>[0]): SceneDeps {
  let runs = runsByDeps.get(deps);
  if (!runs) runsByDeps.set(deps, (runs = new SceneRuns()));
  return Object.assign(Object.create(deps), { runs }) as SceneDeps;
}

/** /v1/scenes (several minds in one conversation) and the job that ends idle scenes. */
export const scenesFeature: Feature = {
  name: "scenes",
  routes: (deps) => [{ mount: "v1", plugin: sceneRoutes(sceneDeps(deps)) }],
  jobs: (deps) => [{ name: SCENE_EXPIRY_JOB, schedule: "*/30 * * * * *", runOnStart: true, run: () => expireIdleScenes(sceneDeps(deps)) }],
};
