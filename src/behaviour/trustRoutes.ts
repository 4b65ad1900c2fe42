import { Elysia, t } from "elysia";
import type { ServiceContext } from "../core/context.ts";
import { requireServer } from "../auth/authGuards.ts";
import { ErrorBody } from "../http/commonSchemas.ts";
import { readJsonBody } from "../http/readJsonBody.ts";
import { getTrust, setTrust } from "./trust.ts";
import { TrustBody, TrustViewSchema } from "./behaviourSchemas.ts";

const errors = Object.fromEntries([400, 401, 403, 404].map((s) => [s, { description: "Error", content: { "application/json": { schema: ErrorBody as any } } }]));
const ok = { 200: { description: "The player's trust in the mind", content: { "application/json": { schema: TrustViewSchema as any } } }, ...errors };

/**
 * A player's trust in a mind, for the game's backend (Server Key, like interact): read it, or set it when the
 * game's own events move it (a quest done, a theft seen). Under /npc/{mindId} as the mind's per-player state,
 * beside /npc/interact: the same key, the same caller, the same project scoping (another project's mind is 404).
 */
export function trustRoutes(ctx: ServiceContext) {
  const params = t.Object({ mindId: t.String(), playerId: t.String() });
  const detail = (summary: string) => ({ tags: ["Runtime (Server Key)"], summary, security: [{ bearer: [] }], responses: ok });
  return new Elysia({ name: "trust-routes" })
    .get(
      "/npc/:mindId/trust/:playerId",
      ({ params: p, request }) => {
        const principal = requireServer(ctx, request.headers.get("authorization"));
        return getTrust(ctx, principal.projectId, p.mindId, p.playerId);
      },
      { params, detail: detail("A player's trust in an Entity Mind") },
    )
    .put(
      "/npc/:mindId/trust/:playerId",
      async ({ params: p, request }) => {
        const principal = requireServer(ctx, request.headers.get("authorization"));
        return setTrust(ctx, principal.projectId, p.mindId, p.playerId, await readJsonBody(request));
      },
      {
        params,
        parse: "none",
        detail: { ...detail("Set a player's trust in an Entity Mind (within the mind's range)"), requestBody: { required: true, content: { "application/json": { schema: TrustBody as any } } } },
      },
    );
}
