import { Elysia } from "elysia";
import { ApiError } from "../core/errors.ts";
import { requireServer } from "../auth/authGuards.ts";
import { ErrorBody } from "../http/commonSchemas.ts";
import { readJsonBody } from "../http/readJsonBody.ts";
import { interact, type InteractDeps, type InteractResponse } from "./interactService.ts";
import { validateInteract } from "./validateInteract.ts";
import { InteractBodyDoc, InteractResponseDoc } from "./interactSchemas.ts";
import { EventStream, wantsEventStream } from "./sse.ts";
import { turnRecorder } from "../loretests/recording/recordingHook.ts";
import { serverTimingHeader, type InteractTiming } from "../llm/serverTiming.ts";

/** POST /v1/npc/interact (Server Key): the stable runtime surface. */
export function npcRoutes(deps: InteractDeps) {
  return new Elysia({ name: "npc-routes" }).post(
    "/npc/interact",
    async ({ request, set }) => {
      const t0 = performance.now();
      let status = 200;
      try {
        // Validation first, then authentication (the order of precedence).
        const body = validateInteract(await readJsonBody(request));
        const principal = requireServer(deps, request.headers.get("authorization"));
        if (wantsEventStream(request.headers.get("accept"))) return await streamInteract(deps, principal, body, request, true);
        const abort = new AbortController();
        request.signal?.addEventListener("abort", () => abort.abort(), { once: true });
        const timing: InteractTiming = { generateMs: 0 };
        const recorder = turnRecorder(deps, principal.projectId, body);
        const reply = await interact(deps, principal, body, { signal: abort.signal, timing, onPrepared: recorder.onPrepared });
        recorder.done(reply);
        // Where the time went: the first token's parts, generation, everything else (auth, limits, ledger, session).
        set.headers["server-timing"] = serverTimingHeader(timing, performance.now() - t0);
        return reply;
      } catch (e) {
        status = e instanceof ApiError ? e.status : 500;
        throw e;
      } finally {
        deps.metrics?.recordInteract((performance.now() - t0) / 1000, status);
      }
    },
    {
      parse: "none",
      detail: {
        tags: ["Runtime (Server Key)"],
        summary: "An NPC's in-character reply to a player's line",
        description:
          "With `Accept: text/event-stream` the reply streams as SSE `token` events and ends with one `done` event whose data is exactly the JSON reply. A mind with behaviour sends, after the last `token` and before `done`, one `emotion` event ({name, intensity}) and one `action` event per action ({id, name, params}). Errors before the first token are ordinary JSON error responses.",
        security: [{ bearer: [] }],
        requestBody: { required: true, content: { "application/json": { schema: InteractBodyDoc as any } } },
        responses: {
          200: { description: "The reply", content: { "application/json": { schema: InteractResponseDoc as any } } },
          ...Object.fromEntries(
            [400, 401, 402, 403, 404, 429, 503].map((s) => [s, { description: "Error", content: { "application/json": { schema: ErrorBody as any } } }]),
          ),
        },
      },
    },
  );
}

/**
 * SSE: waits for the first token (or the end) before answering, so an error
 * before any token is still a normal JSON error response; afterwards tokens
 * flow as they are generated and a `done` event carries the full JSON reply.
 * A client that goes away cancels generation (credits settle for what was made). `record`: a player's own line
 * (the interact route), which a project may record as a candidate lore test; an event's reaction is not one.
 */
export async function streamInteract(
  deps: InteractDeps,
  principal: Parameters<typeof interact>[1],
  body: Parameters<typeof interact>[2],
  request: Request,
  record = false,
): Promise<Response> {
  const abort = new AbortController();
  request.signal?.addEventListener("abort", () => abort.abort(), { once: true });
  const events = new EventStream();
  let firstToken!: () => void;
  const first = new Promise<void>((r) => (firstToken = r));
  const t0 = performance.now();
  const timing: InteractTiming = { generateMs: 0 };
  let firstAt = 0;
  const recorder = record ? turnRecorder(deps, principal.projectId, body) : null;
  const job = interact(deps, principal, body, {
    signal: abort.signal,
    timing,
    onPrepared: recorder?.onPrepared,
    onToken: (text) => {
      events.send("token", { text });
      firstAt ||= performance.now();
      firstToken();
    },
    onBehaviour: (b) => events.sendBehaviour(b),
  });
  if (recorder) job.then(recorder.done, () => {});
  await Promise.race([first, job]); // a failure before the first token rejects here: a JSON error
  if (firstAt) timing.flushMs = performance.now() - firstAt;
  // The headers leave with the first token: its parts (the generation's total is not known yet).
  timing.generateMs = firstAt ? firstAt - t0 - (timing.prepareMs ?? 0) : timing.generateMs;
  return events.respond(job, abort, (reply: InteractResponse) => reply, {
    connection: "keep-alive",
    "server-timing": serverTimingHeader(timing, performance.now() - t0),
  });
}
