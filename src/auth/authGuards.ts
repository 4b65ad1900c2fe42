import { ApiError } from "../core/errors.ts";
import type { ServiceContext } from "../core/context.ts";
import { authenticateKey, bearerToken, type Principal } from "./apiKeys.ts";

/**
 * Editor endpoints: a missing/malformed/revoked key, a JWT, or a Server Key
 * are all 401 `Invalid authentication` (spec, Authentication 4–5).
 */
export function requireEditor(ctx: ServiceContext, authorization: string | undefined | null): Principal {
  const p = authenticateKey(ctx, bearerToken(authorization));
  if (!p || p.type !== "editor") throw new ApiError(401, "Invalid authentication");
  return p;
}

/**
 * POST /npc/interact: missing/malformed/revoked → 401 `Invalid API key`;
 * an Editor Key → 403 `Invalid authentication`.
 */
export function requireServer(ctx: ServiceContext, authorization: string | undefined | null): Principal {
  const p = authenticateKey(ctx, bearerToken(authorization));
  if (!p) throw new ApiError(401, "Invalid API key");
  if (p.type === "editor") throw new ApiError(403, "Invalid authentication");
  return p;
}
