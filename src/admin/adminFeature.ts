import type { Feature } from "../core/feature.ts";
import { adminRoutes } from "./adminRoutes.ts";

/** /admin/v1: authoring and operations, guarded by the admin token. */
export const adminFeature: Feature = {
  name: "admin",
  routes: (deps) => [{ mount: "root", plugin: adminRoutes(deps) }],
};
