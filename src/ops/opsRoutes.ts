import { Elysia } from "elysia";
import type { Metrics } from "./metrics.ts";
import { jsonResponse } from "../http/errorResponse.ts";

/** /readyz (storage, migrations, model) and /metrics (Prometheus text). */
export function opsRoutes(opts: { metrics: Metrics; readiness: () => { ready: boolean } & Record<string, unknown> }) {
  return new Elysia({ name: "ops-routes" })
    .get(
      "/readyz",
      () => {
        const r = opts.readiness();
        return jsonResponse(r.ready ? 200 : 503, r);
      },
      { detail: { tags: ["Operations"], summary: "Readiness: storage open, migrations applied, model loaded or explicitly absent" } },
    )
    .get(
      "/metrics",
      async () => new Response(await opts.metrics.text(), { headers: { "content-type": opts.metrics.contentType } }),
      { detail: { tags: ["Operations"], summary: "Prometheus metrics" } },
    );
}
