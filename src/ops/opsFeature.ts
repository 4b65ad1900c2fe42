import type { Feature } from "../core/feature.ts";
import { opsRoutes } from "./opsRoutes.ts";

/** /readyz and /metrics (/healthz is the HTTP app's own). */
export const opsFeature: Feature = {
  name: "ops",
  routes: (deps) => [{ mount: "root", plugin: opsRoutes({ metrics: deps.metrics, readiness: () => deps.readiness() }) }],
};
