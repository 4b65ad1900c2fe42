import type { Principal } from "../../auth/apiKeys.ts";
import { interact, type InteractDeps, type InteractOptions } from "../../npc/interactService.ts";
import { EventStream } from "../../npc/sse.ts";
import type { InteractRequest } from "../../npc/validateInteract.ts";
import type { ReplyGuardReport } from "../../npc/replies/generateReply.ts";

/**
 * The Studio's playground turn: the very interaction /v1/npc/interact runs
 * (same limits, credits, session and memory), streamed as SSE `token`
 * events and ended by one `done` event carrying the reply and its trace —
 * tokens evaluated vs reused from the KV cache, time to first token,
 * tokens/s and credits. An error before the first token is a JSON error.
 */
export async function playgroundStream(deps: InteractDeps, projectId: string, req: InteractRequest, signal: AbortSignal | undefined): Promise<Response> {
  const principal: Principal = { keyId: "studio-playground", projectId, type: "server" };
  const abort = new AbortController();
  signal?.addEventListener("abort", () => abort.abort(), { once: true });
  const events = new EventStream();
  let firstToken!: () => void;
  const first = new Promise<void>((r) => (firstToken = r));
  const timing: NonNullable<InteractOptions["timing"]> = { generateMs: 0 };
  let guard: ReplyGuardReport | null = null;
  const t0 = performance.now();
  const job = interact(deps, principal, req, {
    signal: abort.signal,
    timing,
    onGuard: (g) => (guard = g),
    onToken: (text) => {
      events.send("token", { text });
      firstToken();
    },
    // A typed turn: the same `emotion` and `action` events as /v1/npc/interact, after the last token.
    onBehaviour: (b) => events.sendBehaviour(b),
  });
  await Promise.race([first, job]);
  return events.respond(job, abort, (reply) => {
    const completion = timing.completionTokens ?? 0;
    const decodeMs = Math.max(1, timing.generateMs - (timing.timeToFirstTokenMs ?? 0));
    return {
      reply,
      trace: {
        promptTokens: timing.promptTokens ?? 0,
        evaluatedPromptTokens: timing.evaluatedPromptTokens ?? 0,
        reusedPromptTokens: Math.max(0, (timing.promptTokens ?? 0) - (timing.evaluatedPromptTokens ?? 0)),
        completionTokens: completion,
        timeToFirstTokenMs: Math.round(timing.timeToFirstTokenMs ?? 0),
        generateMs: Math.round(timing.generateMs),
        totalMs: Math.round(performance.now() - t0),
        tokensPerSecond: completion > 1 ? Math.round(((completion - 1) / decodeMs) * 1000 * 10) / 10 : null,
        creditsUsed: reply.metadata.creditsUsed ?? 0,
        memoryCheckpoint: reply.metadata.memoryCheckpoint ?? false,
        // the reply guard: samples drawn, what each had, why the reply ended early (src/npc/replies)
        guard,
      },
    };
  });
}
