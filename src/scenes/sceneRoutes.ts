import { Elysia, t } from "elysia";
import { requireServer } from "../auth/authGuards.ts";
import type { Principal } from "../auth/apiKeys.ts";
import { ErrorBody } from "../http/commonSchemas.ts";
import { readJsonBody } from "../http/readJsonBody.ts";
import { EventStream, wantsEventStream } from "../npc/sse.ts";
import { checkBody, CreateSceneBody, PatchSceneBody, SceneCreatedView, SceneEndedView, SceneTurnBody, SceneTurnView, SceneView, type SceneTurnInput } from "./sceneSchemas.ts";
import { createScene, endScene, patchScene, sceneView, type SceneDeps } from "./sceneService.ts";
import { runSceneTurn, type SceneTurnResponse } from "./sceneTurn.ts";

const errorCodes = (codes: number[]) =>
  Object.fromEntries(codes.map((s) => [s, { description: "Error", content: { "application/json": { schema: ErrorBody as any } } }]));
const doc = (summary: string, description: string, body?: unknown, ok?: unknown, codes = [400, 401, 403, 404]) => ({
  tags: ["Runtime (Server Key)"],
  summary,
  description,
  security: [{ bearer: [] }],
  ...(body ? { requestBody: { required: true, content: { "application/json": { schema: body as any } } } } : {}),
  responses: { 200: { description: "OK", ...(ok ? { content: { "application/json": { schema: ok as any } } } : {}) }, ...errorCodes(codes) },
});
const params = { params: t.Object({ sceneId: t.String() }) };

/**
 * /v1/scenes (Server Key): several minds in one conversation. Every scene belongs to the key's project; another
 * project's scene id answers 404 `Scene not found`.
 */
export function sceneRoutes(deps: SceneDeps) {
  const principal = (request: Request) => requireServer(deps, request.headers.get("authorization"));
  return new Elysia({ name: "scene-routes" })
    .post(
      "/scenes",
      async ({ request }) => {
        const p = principal(request);
        return createScene(deps, p.projectId, checkBody(CreateSceneBody, await readJsonBody(request)));
      },
      {
        parse: "none",
        detail: doc(
          "Start a scene",
          "Body `{minds: [mindId | {mindId, talkativeness}], location?, playerId?, context?}` → `{sceneId}`. Each mind must be this project's and have knowledge tags. A scene idle for `sceneIdleSeconds` ends as if deleted.",
          CreateSceneBody,
          SceneCreatedView,
        ),
      },
    )
    .get("/scenes/:sceneId", ({ request, params }) => sceneView(deps, principal(request).projectId, params.sceneId), {
      ...params,
      detail: doc("A scene", "Its minds, its context and the newest 50 lines said aloud.", undefined, SceneView, [401, 403, 404]),
    })
    .patch(
      "/scenes/:sceneId",
      async ({ request, params }) => {
        const p = principal(request);
        return patchScene(deps, p.projectId, params.sceneId, checkBody(PatchSceneBody, await readJsonBody(request)));
      },
      {
        ...params,
        parse: "none",
        detail: doc(
          "Minds join or leave a scene",
          "Body `{join?: [mindId | {mindId, talkativeness}], leave?: [mindId]}`. A mind that joins hears what is said from then on; one that leaves has its memory of the scene checkpointed. Answers the scene.",
          PatchSceneBody,
          SceneView,
        ),
      },
    )
    .delete("/scenes/:sceneId", ({ request, params }) => endScene(deps, principal(request).projectId, params.sceneId), {
      ...params,
      detail: doc("End a scene", "Cancels its running turn, checkpoints each mind's memory of it (with a player) and deletes it.", undefined, SceneEndedView, [401, 403, 404]),
    })
    .post(
      "/scenes/:sceneId/turn",
      async ({ request, params }) => {
        const p = principal(request);
        const body = checkBody(SceneTurnBody, await readJsonBody(request));
        if (wantsEventStream(request.headers.get("accept"))) return streamTurn(deps, p, params.sceneId, body, request);
        const abort = new AbortController();
        request.signal?.addEventListener("abort", () => abort.abort(), { once: true });
        return runSceneTurn(deps, p, params.sceneId, body, { signal: abort.signal });
      },
      {
        ...params,
        parse: "none",
        detail: doc(
          "A turn of a scene",
          "Body `{text?, maxLines? (1–6, default 1), speaker?}` → `{success, sceneId, lines: [{mindId, character, response, metadata}], metadata}`. Without text the minds talk among themselves. A new turn on the scene cancels the running one (its answer then has `metadata.cancelled: true`). With `Accept: text/event-stream`: per line a `speaker` event ({mindId, character, why}), its `token` events (and a typed mind's `emotion`/`action`), a `line` event; then `done` with the JSON answer.",
          SceneTurnBody,
          SceneTurnView,
          [400, 401, 402, 403, 404, 429, 503],
        ),
      },
    );
}

/**
 * SSE: answers once the first speaker is chosen (or the turn ended), so an error before any line is a JSON
 * error; then events flow in order. A client that leaves cancels the generation.
 */
async function streamTurn(deps: SceneDeps, principal: Principal, sceneId: string, body: SceneTurnInput, request: Request): Promise<Response> {
  const abort = new AbortController();
  request.signal?.addEventListener("abort", () => abort.abort(), { once: true });
  const events = new EventStream();
  let started!: () => void;
  const first = new Promise<void>((r) => (started = r));
  const job = runSceneTurn(deps, principal, sceneId, body, {
    signal: abort.signal,
    onSpeaker: (s) => {
      events.send("speaker", s);
      started();
    },
    onToken: (text) => events.send("token", { text }),
    onBehaviour: (b) => events.sendBehaviour(b),
    onLine: (line) => events.send("line", line),
  });
  await Promise.race([first, job]); // a failure before the first speaker rejects here: a JSON error
  return events.respond(job, abort, (reply: SceneTurnResponse) => reply, { connection: "keep-alive" });
}
