import { Elysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import { randomUUID } from "node:crypto";
import type { Logger } from "../ops/logger.ts";
import type { HttpFeature } from "../core/feature.ts";
import { errorToResponse, jsonResponse } from "./errorResponse.ts";

export type { HttpFeature };

export const SERVICE_VERSION = "1.0.67";

/**
 * The route table: every feature the server mounts, in order. Errors are
 * converted once here; every response is JSON and carries x-request-id.
 */
export function createHttpApp(opts: {
  log: Logger;
  features: HttpFeature[];
  health: () => Record<string, unknown>;
  /** called once per response (metrics) */
  onResponse?: (method: string, route: string, status: number) => void;
}) {
  const { log } = opts;
  const started = new WeakMap<Request, { id: string; t0: number; status?: number }>();
  // normalize: false — unknown body fields are refused (a typo must not pass silently), and responses must match their schemas exactly.
  let app = new Elysia({ name: "lorehold", normalize: false })
    .use(
      swagger({
        path: "/swagger",
        documentation: {
          info: {
            title: "Lorehold API",
            version: SERVICE_VERSION,
            description:
              "Self-hosted NPC dialogue and lore server. `/v1` is the spec's interface (Server Key for /npc/interact, Editor Key elsewhere); `/admin/v1` is authoring with the admin token.",
          },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
        },
      }),
    )
    .onRequest(({ request, set }) => {
      const id = request.headers.get("x-request-id")?.slice(0, 100) || randomUUID();
      started.set(request, { id, t0: performance.now() });
      set.headers["x-request-id"] = id;
    })
    .onError(({ code, error, request, set }) => {
      const meta = started.get(request);
      const res = errorToResponse(code, error, log, meta?.id);
      if (meta) {
        res.headers.set("x-request-id", meta.id);
        meta.status = res.status; // `set.status` still says 200 here (e.g. an unknown route's 404)
      }
      for (const [k, v] of Object.entries(set.headers)) if (typeof v === "string" && !res.headers.has(k)) res.headers.set(k, v);
      return res;
    })
    .onAfterResponse((c) => {
      const { request, set } = c;
      const meta = started.get(request);
      if (!meta) return;
      const url = new URL(request.url);
      // The status actually sent: an error's, a Response a handler returned (e.g. /readyz's 503), or set.status.
      const returned = (c as { responseValue?: unknown }).responseValue;
      const status = meta.status ?? (returned instanceof Response ? returned.status : typeof set.status === "number" ? set.status : 200);
      const route = (c as { route?: string }).route || "unmatched";
      opts.onResponse?.(request.method, route, status);
      log.info("request", {
        requestId: meta.id,
        method: request.method,
        path: url.pathname,
        status,
        ms: Math.round((performance.now() - meta.t0) * 10) / 10,
      });
    })
    .get("/healthz", () => opts.health(), { detail: { tags: ["Operations"], summary: "Liveness and model status" } });

  const v1 = new Elysia({ prefix: "/v1" });
  for (const f of opts.features) if (f.mount === "v1") v1.use(f.plugin);
  app = app.use(v1);
  for (const f of opts.features) if (f.mount === "root") app = app.use(f.plugin);
  return app;
}

export type HttpApp = ReturnType<typeof createHttpApp>;
export { jsonResponse };
