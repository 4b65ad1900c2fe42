import { Elysia, t } from "elysia";
import type { ServiceContext } from "../../core/context.ts";
import { readJsonBody } from "../../http/readJsonBody.ts";
import { readState, readStateSchema, writeState, writeStateSchema } from "../../state/stateService.ts";
import { PlayerStateView, StateSchemaModel, StateWriteModel, WorldStateView } from "../../state/stateModels.ts";
import { projectParam } from "../adminGuard.ts";
import { adminDetail, adminErrors } from "./crud.ts";

const pid = t.Object({ projectId: t.String() });
const player = t.Object({ projectId: t.String(), playerId: t.String() });
const body = (schema: unknown) => ({ requestBody: { required: true, content: { "application/json": { schema: schema as any } } } });

/**
 * A project's state through the admin API: its declarations (typed keys, defaults, exclusive groups)
 * and the same world and player state the game sets through /v1/state with its Server Key.
 */
export function stateAdminRoutes(ctx: ServiceContext) {
  return new Elysia({ name: "admin-state", normalize: false })
    .get("/projects/:projectId/state/schema", ({ params }) => readStateSchema(ctx, projectParam(ctx, params.projectId)), {
      params: pid,
      response: { 200: StateSchemaModel, ...adminErrors },
      detail: adminDetail("The project's state declarations: typed keys (type, default, enum) and exclusive groups"),
    })
    .put(
      "/projects/:projectId/state/schema",
      async ({ params, request }) => writeStateSchema(ctx, projectParam(ctx, params.projectId), await readJsonBody(request)),
      {
        parse: "none",
        params: pid,
        response: { 200: StateSchemaModel, ...adminErrors },
        detail: { ...adminDetail("Replace the project's state declarations (400 lists every problem)"), ...body(StateSchemaModel) },
      },
    )
    .get("/projects/:projectId/state/world", ({ params }) => ({ state: readState(ctx, projectParam(ctx, params.projectId), null) }), {
      params: pid,
      response: { 200: WorldStateView, ...adminErrors },
      detail: adminDetail("The world's state"),
    })
    .put(
      "/projects/:projectId/state/world",
      async ({ params, request }) => ({ state: writeState(ctx, projectParam(ctx, params.projectId), null, await readJsonBody(request)) }),
      {
        parse: "none",
        params: pid,
        response: { 200: WorldStateView, ...adminErrors },
        detail: { ...adminDetail("Change the world's state: {set?, unset?} in one transaction"), ...body(StateWriteModel) },
      },
    )
    .get(
      "/projects/:projectId/state/players/:playerId",
      ({ params }) => ({ playerId: params.playerId, state: readState(ctx, projectParam(ctx, params.projectId), params.playerId) }),
      { params: player, response: { 200: PlayerStateView, ...adminErrors }, detail: adminDetail("A player's state") },
    )
    .put(
      "/projects/:projectId/state/players/:playerId",
      async ({ params, request }) => ({
        playerId: params.playerId,
        state: writeState(ctx, projectParam(ctx, params.projectId), params.playerId, await readJsonBody(request)),
      }),
      {
        parse: "none",
        params: player,
        response: { 200: PlayerStateView, ...adminErrors },
        detail: { ...adminDetail("Change a player's state: {set?, unset?} in one transaction"), ...body(StateWriteModel) },
      },
    );
}
