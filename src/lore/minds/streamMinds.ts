import type { ServiceContext } from "../../core/context.ts";
import { mindViews } from "./readMinds.ts";

/** Minds written per chunk of the stream: small enough to start early, large enough to cost little per chunk. */
const MINDS_PER_CHUNK = 32;

/**
 * GET /lore/minds's body, `{"minds":[…]}`, written as it is built: the list is unpaginated by the
 * spec, and with 1,000 minds building every view and then serialising the whole array held it twice.
 * The rows are read (and the first mind built) before the response starts, so a failure there is
 * still an error status, never a cut body; after that each chunk is built when the client takes it.
 */
export function specMindsResponse(ctx: ServiceContext, projectId: string): Response {
  const minds = mindViews(ctx, projectId, { onlyWithTags: true });
  let next = minds.next();
  let opened = false;
  let written = 0;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      let text = opened ? "" : '{"minds":[';
      opened = true;
      for (let i = 0; i < MINDS_PER_CHUNK && !next.done; i++) {
        text += (written++ === 0 ? "" : ",") + JSON.stringify(next.value);
        next = minds.next();
      }
      if (next.done) text += "]}";
      controller.enqueue(encoder.encode(text));
      if (next.done) controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "application/json;charset=utf-8" } });
}
