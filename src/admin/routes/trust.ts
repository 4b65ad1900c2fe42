import { Elysia, t } from "elysia";
import type { ServiceContext } from "../../core/context.ts";
import { ErrorBody } from "../../http/commonSchemas.ts";
import { readJsonBody } from "../../http/readJsonBody.ts";
import { getTrust, listPlayerTrust, setTrust } from "../../behaviour/trust.ts";
import { TrustBody, TrustViewSchema } from "../../behaviour/behaviourSchemas.ts";
import { projectParam } from "../adminGuard.ts";
import { adminDetail } from "./crud.ts";

const params = t.Object({ projectId: t.String(), id: t.String(), playerId: t.String() });
const response = { 200: TrustViewSchema, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody } as const;

/** A player's trust in a mind (`:id`, as the minds routes name it), read and set by the studio (the same services as the Server-Key routes). */
export function trustAdminRoutes(ctx: ServiceContext) {
  const path = "/projects/:projectId/minds/:id/trust/:playerId";
  return new Elysia({ name: "admin-trust" })
    .get(path, ({ params: p }) => getTrust(ctx, projectParam(ctx, p.projectId), p.id, p.playerId), {
      params,
      response,
      detail: adminDetail("A player's trust in an Entity Mind"),
    })
    .get("/projects/:projectId/players/:playerId/trust", ({ params: p }) => listPlayerTrust(ctx, projectParam(ctx, p.projectId), p.playerId), {
      params: t.Object({ projectId: t.String(), playerId: t.String() }),
      response: { 200: t.Object({ playerId: t.String(), trust: t.Array(TrustViewSchema) }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      detail: adminDetail("A player's trust in every mind of the project that keeps trust"),
    })
    .put(path, async ({ params: p, request }) => setTrust(ctx, projectParam(ctx, p.projectId), p.id, p.playerId, await readJsonBody(request)), {
      params,
      parse: "none",
      response,
      detail: { ...adminDetail("Set a player's trust in an Entity Mind (within the mind's range)"), requestBody: { required: true, content: { "application/json": { schema: TrustBody as any } } } },
    });
}
