import { ApiError } from "../core/errors.ts";
import type { ServiceContext } from "../core/context.ts";
import { bearerToken } from "../auth/apiKeys.ts";
import { effectiveAdminToken, tokenMatches } from "./adminToken.ts";
import { getProject } from "../projects/projectService.ts";

/** `/admin/v1`: Bearer admin token (from `init` or config), compared in constant time. */
export function requireAdmin(ctx: ServiceContext, configured: string | null, authorization: string | undefined): void {
  const expected = effectiveAdminToken(ctx.db, configured);
  if (!tokenMatches(bearerToken(authorization), expected)) throw new ApiError(401, "Invalid authentication");
}

/** Admin routes address a project by id; unknown → 404 `Project not found`. */
export function projectParam(ctx: ServiceContext, projectId: string): string {
  return getProject(ctx, projectId).id;
}
