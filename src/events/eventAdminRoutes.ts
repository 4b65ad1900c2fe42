import { Elysia, t } from "elysia";
import type { MemoryContext } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { validateEvents } from "./validateEvents.ts";
import { recordEvents } from "./recordEvents.ts";
import { ErrorBody, pageQuery } from "../http/commonSchemas.ts";
import { readJsonBody } from "../http/readJsonBody.ts";
import { projectParam } from "../admin/adminGuard.ts";
import { adminDetail } from "../admin/routes/crud.ts";
import { getGossipLevel, listEvents, setGossipLevel, whoKnows } from "./eventAdmin.ts";
import { GOSSIP_LEVELS } from "./gossipRules.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody } as const;
const GossipView = t.Object({ entityMindId: t.String(), level: t.String({ description: GOSSIP_LEVELS.join(" | ") }) });

/** /admin/v1 events: the log, who knows an event and through whom, and each mind's gossip level. */
export function eventAdminRoutes(ctx: MemoryContext) {
  return new Elysia({ name: "admin-events" })
    .post(
      "/projects/:projectId/events",
      async ({ params, request, set }) => {
        const projectId = projectParam(ctx, params.projectId);
        const { events, batch } = validateEvents(await readJsonBody(request));
        // the Studio's way in: it records as the game would, but never speaks (react is the game's, and charged)
        if (events.some((e) => e.react !== undefined && e.react !== false)) throw new ApiError(400, "Invalid request", { details: ["react: not from the admin API (use POST /v1/npc/{mindId}/react)"] });
        const recorded = await recordEvents(ctx, projectId, events, batch);
        set.status = 201;
        return batch ? { events: recorded.events } : { event: recorded.events[0] };
      },
      {
        parse: "none",
        params: t.Object({ projectId: t.String() }),
        detail: adminDetail("Record events as POST /v1/events does (the Studio's playground), without a reaction"),
      },
    )
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
