import type { Feature } from "../core/feature.ts";
import { studioRoutes } from "./studioRoutes.ts";

/** Lorehold Studio: the web dashboard at `/` (its admin endpoints live with the admin API). */
export const studioFeature: Feature = {
  name: "studio",
  routes: (deps) => [{ mount: "root", plugin: studioRoutes(deps) }],
};
