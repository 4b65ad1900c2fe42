import { Elysia } from "elysia";
import type { FeatureDeps } from "../core/feature.ts";
import { requireAdmin } from "./adminGuard.ts";
import { studioSessionAllows } from "../studio/studioAuth.ts";
import { projectRoutes } from "./routes/projects.ts";
import { loreResourceRoutes } from "./routes/loreResources.ts";
import { operationsRoutes } from "./routes/operations.ts";
import { jobRoutes } from "./routes/jobs.ts";
import { memoryRoutes } from "./routes/memories.ts";
import { trustAdminRoutes } from "./routes/trust.ts";
import { previewRoutes } from "./routes/preview.ts";
import { cardRoutes } from "./routes/cards.ts";
import { studioAdminRoutes } from "./routes/studioAdmin.ts";
import { stateAdminRoutes } from "./routes/state.ts";
import { eventAdminRoutes } from "../events/eventAdminRoutes.ts";

/** /admin/v1: authoring and operations, guarded by the admin token. */
export function adminRoutes(deps: FeatureDeps) {
  // Typed as any: Elysia's inferred route types don't survive a loop of .use() calls.
  let app: any = new Elysia({ name: "admin", prefix: "/admin/v1", normalize: false })
    .derive(({ headers, request }) => {
      // The Studio's session cookie (+ CSRF header on writes) stands in for the bearer token.
      if (headers.authorization || !studioSessionAllows(deps, deps.config.adminToken, request)) requireAdmin(deps, deps.config.adminToken, headers.authorization);
      return {};
    })
    .use(projectRoutes(deps, deps.config))
    .use(operationsRoutes(deps));
  for (const r of loreResourceRoutes(deps)) app = app.use(r);
  for (const r of [jobRoutes(deps.scheduler), memoryRoutes(deps), trustAdminRoutes(deps), previewRoutes(deps), stateAdminRoutes(deps), eventAdminRoutes(deps), cardRoutes(deps), ...studioAdminRoutes(deps)]) app = app.use(r);
  return app;
}
