import { Elysia, t } from "elysia";
import { Value } from "@sinclair/typebox/value";
import type { InteractDeps } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { requireServer } from "../auth/authGuards.ts";
import type { Principal } from "../auth/apiKeys.ts";
import { ErrorBody } from "../http/commonSchemas.ts";
import { findProject } from "../projects/projectService.ts";
import { readRateLimits } from "../ratelimit/rateLimitSettings.ts";
import { interact } from "../npc/interactService.ts";
import { streamInteract } from "../npc/npcRoutes.ts";
import { wantsEventStream } from "../npc/sse.ts";
import { EVENT_LIMITS, EventBodyModel, ReactBodyModel, type ReactBody } from "./eventModels.ts";
import { validateEvents } from "./validateEvents.ts";
import { recordEvents, rememberResponse, replayed } from "./recordEvents.ts";
import { reactRequest, reactingMind } from "./react.ts";

const errorDocs = (codes: number[]) =>
  Object.fromEntries(codes.map((s) => [s, { description: "Error", content: { "application/json": { schema: ErrorBody as any } } }]));

/** The rate-limit window of events sent without a player (per project, as the interact path's player windows are). */
const EVENTS_WINDOW = "\u0000events";

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new ApiError(400, "Invalid request", { details: ["body: malformed JSON"] });
  }
}

/**
 * POST /v1/events and POST /v1/npc/{mindId}/react (Server Key): the game tells the world what happened,
 * and asks a mind to speak first. Both scoped to the key's project, rate-limited like /v1/npc/interact.
 */
export function eventRoutes(deps: InteractDeps) {
  return new Elysia({ name: "event-routes" })
    .post(
      "/events",
      async ({ request, set }) => {
        const raw = await request.text();
        // Validation first, then authentication (as /v1/npc/interact).
        const { events, batch } = validateEvents(parseJson(raw));
        const principal = requireServer(deps, request.headers.get("authorization"));
        const project = findProject(deps, principal.projectId);
        if (!project) throw new ApiError(404, "Project not found");
        const key = request.headers.get("idempotency-key");
        if (key !== null && (key.length === 0 || key.length > EVENT_LIMITS.idempotencyKeyChars)) {
          throw new ApiError(400, "Invalid request", { details: [`Idempotency-Key: 1 to ${EVENT_LIMITS.idempotencyKeyChars} characters`] });
        }
        const again = replayed(deps, project.id, key, raw);
        set.status = 201;
        if (again) {
          set.headers["idempotent-replayed"] = "true";
          return again;
        }
        const window = !batch && events[0].playerId ? events[0].playerId : EVENTS_WINDOW;
        deps.limiter.hit(project.id, window, readRateLimits(deps, project.id));
        const recorded = await recordEvents(deps, project.id, events, batch, key ? { key, rawBody: raw } : undefined);
        let response: Record<string, unknown> = batch ? { events: recorded.events } : { event: recorded.events[0] };
        try {
          if (recorded.reactor) response = { ...response, ...(await eventReaction(deps, principal, recorded.reactor, events[0].description, events[0].playerId)) };
        } finally {
          // the events are recorded whatever became of the reaction: a retry gets them back, never records them again
          if (key) rememberResponse(deps, project.id, key, response);
        }
        return response;
      },
      {
        parse: "none",
        detail: {
          tags: ["Runtime (Server Key)"],
          summary: "Tell the world what happened",
          description:
            "One event, or `{events: [...]}` (up to 100, recorded all or none). Each witness gets a memory: the player's memory with that mind when `playerId` is given, else a world memory of the mind that every player's turn with it may recall (and gossip may spread, unless `secret`). `witnesses: \"location\"` or `public` adds every mind at the event's location. `state` / `playerState` change the world's / the player's state as PUT /v1/state does. `react` on a single event has the first (or the named) witness say its line now, charged like an interaction (`reaction` in the answer; `reactionError` if it could not). An `Idempotency-Key` header makes a retry return the first answer instead of recording again (409 when the key comes with another body).",
          security: [{ bearer: [] }],
          requestBody: { required: true, content: { "application/json": { schema: EventBodyModel as any } } },
          responses: { 201: { description: "Recorded: `{event}` or `{events}`" }, ...errorDocs([400, 401, 403, 404, 409, 429]) },
        },
      },
    )
    .post(
      "/npc/:mindId/react",
      async ({ request, params, set }) => {
        const body = parseJson(await request.text());
        if (!Value.Check(ReactBodyModel, body)) {
          const details = [...Value.Errors(ReactBodyModel, body)].slice(0, 10).map((e) => `${e.path.slice(1) || "body"}: ${e.message.toLowerCase()}`);
          throw new ApiError(400, "Invalid request", { details });
        }
        const b = body as ReactBody;
        if (b.reason.trim() === "") throw new ApiError(400, "Invalid request", { details: ["reason: must not be blank"] });
        const principal = requireServer(deps, request.headers.get("authorization"));
        const req = reactRequest(reactingMind(deps.db, principal.projectId, params.mindId), b.reason.trim(), b.playerId);
        if (b.stream || wantsEventStream(request.headers.get("accept"))) return await streamInteract(deps, principal, req, request);
        const abort = new AbortController();
        request.signal?.addEventListener("abort", () => abort.abort(), { once: true });
        set.status = 200;
        return await interact(deps, principal, req, { signal: abort.signal });
      },
      {
        parse: "none",
        params: t.Object({ mindId: t.String() }),
        detail: {
          tags: ["Runtime (Server Key)"],
          summary: "A mind's unprompted line",
          description:
            "What the mind says now, with no player line: `reason` is what just happened. Answers as /v1/npc/interact does (the same JSON, or SSE with `stream: true` or `Accept: text/event-stream`; a mind with behaviour adds its emotion and actions), and is rate-limited, reserved and charged the same way. With `playerId` the line joins that player's conversation with the mind.",
          security: [{ bearer: [] }],
          requestBody: { required: true, content: { "application/json": { schema: ReactBodyModel as any } } },
          responses: { 200: { description: "The line" }, ...errorDocs([400, 401, 402, 403, 404, 429, 503]) },
        },
      },
    );
}

/** An event's reaction: the line, or why there is none (the event stays recorded either way). */
async function eventReaction(deps: InteractDeps, principal: Principal, mindId: string, description: string, playerId: string | null | undefined) {
  try {
    // The route counted the request against the rate limits already: the reaction is part of it, not a second request.
    return { reaction: { entityMindId: mindId, ...(await interact(deps, principal, reactRequest(mindId, description, playerId), { rateCounted: true })) } };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { reaction: null, reactionError: { status: e.status, ...e.toBody() } };
  }
}

