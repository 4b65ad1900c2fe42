import type { Feature } from "../core/feature.ts";
import { trustRoutes } from "./trustRoutes.ts";

/** The typed turn's own routes: a player's trust in a mind (the turn itself runs in the npc feature). */
export const behaviourFeature: Feature = {
  name: "behaviour",
  routes: (deps) => [{ mount: "v1", plugin: trustRoutes(deps) }],
};
