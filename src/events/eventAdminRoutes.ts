import { Elysia, t } from "elysia";
import type { ServiceContext } from "../core/context.ts";
import { ErrorBody, pageQuery } from "../http/commonSchemas.ts";
import { readJsonBody } from "../http/readJsonBody.ts";
import { projectParam } from "../admin/adminGuard.ts";
import { adminDetail } from "../admin/routes/crud.ts";
import { getGossipLevel, listEvents, setGossipLevel, whoKnows } from "./eventAdmin.ts";
import { GOSSIP_LEVELS } from "./gossipRules.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody } as const;
const GossipView = t.Object({ entityMindId: t.String(), level: t.String({ description: GOSSIP_LEVELS.join(" | ") }) });

/** /admin/v1 events: the log, who knows an event and through whom, and each mind's gossip level. */
export function eventAdminRoutes(ctx: ServiceContext) {
  return new Elysia({ name: "admin-events" })
    .get(
      "/projects/:projectId/events",
      ({ params, query }) =>
        listEvents(ctx, projectParam(ctx, params.projectId), {
          type: query.type,
          playerId: query.playerId,
          mindId: query.mindId,
          limit: query.limit ?? 50,
          offset: query.offset ?? 0,
        }),
      {
        params: t.Object({ projectId: t.String() }),
        query: t.Object({ type: t.Optional(t.String()), playerId: t.Optional(t.String()), mindId: t.Optional(t.String()), ...pageQuery(50, 200) }),
        detail: adminDetail("The project's events, newest first (filters: type, playerId, mindId — witnessed or heard)"),
      },
    )
    .get("/projects/:projectId/events/:eventId", ({ params }) => whoKnows(ctx, projectParam(ctx, params.projectId), params.eventId), {
      params: t.Object({ projectId: t.String(), eventId: t.String() }),
      detail: adminDetail("An event and who knows it now, with the gossip path from a witness to each mind"),
    })
    .get("/projects/:projectId/minds/:id/gossip", ({ params }) => getGossipLevel(ctx, projectParam(ctx, params.projectId), params.id), {
      params: t.Object({ projectId: t.String(), id: t.String() }),
      response: { 200: GossipView, ...errors },
      detail: adminDetail("How readily a mind passes on what it knows"),
    })
    .put("/projects/:projectId/minds/:id/gossip", async ({ params, request }) => setGossipLevel(ctx, projectParam(ctx, params.projectId), params.id, await readJsonBody(request)), {
      parse: "none",
      params: t.Object({ projectId: t.String(), id: t.String() }),
      response: { 200: GossipView, ...errors },
      detail: { ...adminDetail(`Set a mind's gossip level: ${GOSSIP_LEVELS.join(", ")}`), requestBody: { required: true, content: { "application/json": { schema: t.Object({ level: t.String() }) as any } } } },
    });
}
