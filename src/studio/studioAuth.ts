import type { ServiceContext } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { effectiveAdminToken } from "../admin/adminToken.ts";
import { CSRF_HEADER, readCookie, SESSION_COOKIE, csrfMatches, verifySession, type StudioSession } from "./session.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** The Studio session a request carries (cookie), or null. */
export function sessionOf(ctx: ServiceContext, configured: string | null, request: Request): StudioSession | null {
  const cookie = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  if (!cookie) return null;
  return verifySession(effectiveAdminToken(ctx.db, configured), cookie, ctx.clock.now().getTime());
}

/**
 * The admin guard's alternative to the bearer token: a valid Studio session
 * cookie, plus — for any state-changing method — the CSRF header and a
 * same-origin Origin (when the browser sends one). Returns false when the
 * request has no valid session (the bearer check then decides); a session
 * without its CSRF proof is refused outright (403), never let through.
 */
export function studioSessionAllows(ctx: ServiceContext, configured: string | null, request: Request): boolean {
  const session = sessionOf(ctx, configured, request);
  if (!session) return false;
  if (SAFE.has(request.method)) return true;
  if (!csrfMatches(session, request.headers.get(CSRF_HEADER))) throw new ApiError(403, "Missing or invalid CSRF token");
  const origin = request.headers.get("origin");
  if (origin && origin !== "null") {
    const host = request.headers.get("host") ?? new URL(request.url).host;
    let originHost = "";
    try {
      originHost = new URL(origin).host;
    } catch {}
    if (originHost !== host) throw new ApiError(403, "Cross-origin request refused");
  }
  return true;
}
