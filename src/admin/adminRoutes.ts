import { Elysia } from "elysia";
import type { ServiceContext } from "../core/context.ts";
import type { Config } from "../config/config.ts";
import { requireAdmin } from "./adminGuard.ts";
import { studioSessionAllows } from "../studio/studioAuth.ts";
import { projectRoutes } from "./routes/projects.ts";
import { loreResourceRoutes } from "./routes/loreResources.ts";
import { operationsRoutes } from "./routes/operations.ts";

/** /admin/v1: authoring and operations, guarded by the admin token. */
export function adminRoutes(ctx: ServiceContext, config: Config, extra: Elysia<any, any, any, any, any, any, any>[] = []) {
  // Typed as any: Elysia's inferred route types don't survive a loop of .use() calls.
  let app: any = new Elysia({ name: "admin", prefix: "/admin/v1", normalize: false })
    .derive(({ headers, request }) => {
      // The Studio's session cookie (+ CSRF header on writes) stands in for the bearer token.
      if (headers.authorization || !studioSessionAllows(ctx, config.adminToken, request)) requireAdmin(ctx, config.adminToken, headers.authorization);
      return {};
    })
    .use(projectRoutes(ctx, config))
    .use(operationsRoutes(ctx));
  for (const r of loreResourceRoutes(ctx)) app = app.use(r);
  for (const r of extra) app = app.use(r);
  return app;
}
