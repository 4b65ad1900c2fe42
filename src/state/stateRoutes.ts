import { Elysia, t } from "elysia";
import type { ServiceContext } from "../core/context.ts";
import { requireServer } from "../auth/authGuards.ts";
import { ErrorBody } from "../http/commonSchemas.ts";
import { readJsonBody } from "../http/readJsonBody.ts";
import { readState, writeState } from "./stateService.ts";
import { PlayerStateView, StateWriteModel, WorldStateView } from "./stateModels.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody } as const;
const doc = (summary: string, description: string, body = false) => ({
  tags: ["Runtime (Server Key)"],
  summary,
  description,
  security: [{ bearer: [] }],
  ...(body ? { requestBody: { required: true, content: { "application/json": { schema: StateWriteModel as any } } } } : {}),
});
const WRITE =
  "Body `{set?: {key: value}, unset?: [key]}`, applied in one transaction: the whole write or nothing. A declared key takes only its type (and enum); " +
  "setting a key of an exclusive group clears the group's other keys. 400 `Invalid request` lists every problem.";

/**
 * /v1/state: the world's state and each player's, set by the game's backend with its Server Key
 * (the runtime surface: the same keys as POST /v1/npc/interact, never an Editor Key). Every
 * read and write is scoped to the key's project.
 */
export function stateRoutes(ctx: ServiceContext) {
  const principal = (request: Request) => requireServer(ctx, request.headers.get("authorization"));
  return new Elysia({ name: "state-routes" })
    .get("/state/world", ({ request }) => ({ state: readState(ctx, principal(request).projectId, null) }), {
      response: { 200: WorldStateView, ...errors },
      detail: doc("The world's state", "Every key the world of this project has set."),
    })
    .put(
      "/state/world",
      async ({ request }) => {
        const { projectId } = principal(request);
        return { state: writeState(ctx, projectId, null, await readJsonBody(request)) };
      },
      { parse: "none", response: { 200: WorldStateView, ...errors }, detail: doc("Change the world's state", `${WRITE} Answers with the world's new state.`, true) },
    )
    .get(
      "/state/players/:playerId",
      ({ request, params }) => ({ playerId: params.playerId, state: readState(ctx, principal(request).projectId, params.playerId) }),
      { params: t.Object({ playerId: t.String() }), response: { 200: PlayerStateView, ...errors }, detail: doc("A player's state", "Every key this player has set.") },
    )
    .put(
      "/state/players/:playerId",
      async ({ request, params }) => {
        const { projectId } = principal(request);
        return { playerId: params.playerId, state: writeState(ctx, projectId, params.playerId, await readJsonBody(request)) };
      },
      {
        parse: "none",
        params: t.Object({ playerId: t.String() }),
        response: { 200: PlayerStateView, ...errors },
        detail: doc("Change a player's state", `${WRITE} Answers with the player's new state. Conditions read a player's key before the world's.`, true),
      },
    );
}
