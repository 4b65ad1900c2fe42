import type { Feature } from "../core/feature.ts";
import { stateRoutes } from "./stateRoutes.ts";

/** /v1/state: the world's and each player's state, which every turn's conditions read. */
export const stateFeature: Feature = {
  name: "state",
  routes: (deps) => [{ mount: "v1", plugin: stateRoutes(deps) }],
};
