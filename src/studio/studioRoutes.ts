import { Elysia, t } from "elysia";
import type { ServiceContext } from "../core/context.ts";
import type { Config } from "../config/config.ts";
import { ApiError } from "../core/errors.ts";
import { effectiveAdminToken, tokenMatches } from "../admin/adminToken.ts";
import { projectParam } from "../admin/adminGuard.ts";
import { STUDIO_SECURITY_HEADERS } from "./securityHeaders.ts";
import { clearedCookie, CSRF_HEADER, csrfMatches, endSession, issueSession, sessionCookie, SESSION_TTL_SECONDS } from "./session.ts";
import { SignInThrottle } from "./signInThrottle.ts";
import { sessionOf } from "./studioAuth.ts";
import { studioBundle } from "./studioBundle.ts";
import { StudioKeys } from "./studioKeys.ts";

export interface StudioDeps extends ServiceContext {
  config: Config;
  /** the whole HTTP app, for the /v1 pass-through */
  handle: (req: Request) => Promise<Response>;
}

const detail = (summary: string) => ({ tags: ["Studio"], summary });
const SignInBody = t.Object({ token: t.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false });
/** Request headers passed on to /v1 (never the cookie: /v1 sees only the Studio's key). */
const FORWARDED = ["content-type", "accept", "x-request-id"];

function withHeaders(res: Response, extra: Record<string, string> = {}): Response {
  for (const [k, v] of Object.entries({ ...STUDIO_SECURITY_HEADERS, ...extra })) res.headers.set(k, v);
  return res;
}

/**
 * Lorehold Studio: the page at `/`, its assets, the session (sign in with
 * the admin token → HttpOnly SameSite=Strict cookie; sign out) and a
 * pass-through to /v1 for a project, authenticated with the Studio's own
 * API keys of that project.
 */
export function studioRoutes(deps: StudioDeps) {
  const throttle = new SignInThrottle();
  const keys = new StudioKeys(deps);
  const secure = deps.config.publicUrl.startsWith("https:");
  const now = () => deps.clock.now().getTime();
  const gzipped = new Map<string, Uint8Array>();

  const requireSession = (request: Request, write: boolean) => {
    const s = sessionOf(deps, deps.config.adminToken, request);
    if (!s) throw new ApiError(401, "Invalid authentication");
    if (write && !csrfMatches(s, request.headers.get(CSRF_HEADER))) throw new ApiError(403, "Missing or invalid CSRF token");
    return s;
  };

  return new Elysia({ name: "studio", normalize: false })
    .get(
      "/",
      async () =>
        withHeaders(new Response((await studioBundle()).html, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } })),
      { detail: detail("Lorehold Studio (the web dashboard)") },
    )
    .get(
      "/studio/assets/:name",
      async ({ params, request }) => {
        const file = (await studioBundle()).files.find((f) => f.name === params.name);
        if (!file) throw new ApiError(404, "Not found");
        const headers: Record<string, string> = { "content-type": file.type, "cache-control": "public, max-age=31536000, immutable", vary: "accept-encoding" };
        // Compressed once per file and kept: the JS is ~230 KB raw, ~85 KB gzipped.
        if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
          let z = gzipped.get(file.name);
          if (!z) gzipped.set(file.name, (z = Bun.gzipSync(new TextEncoder().encode(file.text), { level: 9 })));
          return withHeaders(new Response(z, { headers: { ...headers, "content-encoding": "gzip" } }));
        }
        return withHeaders(new Response(file.text, { headers }));
      },
      { params: t.Object({ name: t.String() }), detail: detail("A Studio asset (hashed name)") },
    )
    .get(
      "/studio/api/session",
      ({ request }) => {
        // 200 either way: the page asks this at every load, and a signed-out visitor is not an error.
        const s = sessionOf(deps, deps.config.adminToken, request);
        const body = s ? { signedIn: true, expiresAt: new Date(s.expiresAt).toISOString(), csrfToken: s.csrf } : { signedIn: false };
        return withHeaders(Response.json(body), { "cache-control": "no-store" });
      },
      { detail: detail("The current Studio session and its CSRF token ({signedIn: false} without one)") },
    )
    .post(
      "/studio/api/session",
      async ({ body, request, server }) => {
        const client = server?.requestIP(request)?.address ?? "local";
        const wait = throttle.delayMs(client, now());
        if (wait > 0) await Bun.sleep(wait);
        const expected = effectiveAdminToken(deps.db, deps.config.adminToken);
        if (!tokenMatches(body.token.trim(), expected)) {
          throttle.fail(client, now());
          throw new ApiError(401, "Invalid authentication", { message: "That is not this server's admin token (lorehold init prints it)." });
        }
        throttle.succeed(client);
        const { cookieValue, session } = issueSession(expected!, now());
        return withHeaders(Response.json({ signedIn: true, expiresAt: new Date(session.expiresAt).toISOString(), csrfToken: session.csrf }), {
          "set-cookie": sessionCookie(cookieValue, SESSION_TTL_SECONDS, secure),
          "cache-control": "no-store",
        });
      },
      { body: SignInBody, detail: detail("Sign in with the admin token: sets an HttpOnly, SameSite=Strict session cookie") },
    )
    .delete(
      "/studio/api/session",
      ({ request }) => {
        endSession(requireSession(request, true), now());
        return withHeaders(Response.json({ signedIn: false }), { "set-cookie": clearedCookie(secure) });
      },
      { detail: detail("Sign out (needs the CSRF header)") },
    )
    .all(
      "/studio/api/projects/:projectId/v1/*",
      async ({ request, params }) => {
        const write = !["GET", "HEAD"].includes(request.method);
        requireSession(request, write);
        const projectId = projectParam(deps, params.projectId);
        const url = new URL(request.url);
        const rest = params["*"];
        const target = new URL(`/v1/${rest}${url.search}`, url);
        // the runtime routes (an interaction, a scene) take the Server Key; the read API the Editor Key
        const type = rest === "npc/interact" || rest === "scenes" || rest.startsWith("scenes/") ? "server" : "editor";
        const body = write ? await request.arrayBuffer() : undefined;
        const send = (key: string) => {
          const headers = new Headers({ authorization: `Bearer ${key}` });
          for (const h of FORWARDED) {
            const v = request.headers.get(h);
            if (v) headers.set(h, v);
          }
          return deps.handle(new Request(target.href, { method: request.method, headers, body, signal: request.signal }));
        };
        return send(keys.key(projectId, type));
      },
      { parse: "none", params: t.Object({ projectId: t.String(), "*": t.String() }), detail: detail("/v1 for one project, as the Studio (session cookie + CSRF header)") },
    );
}
