import type { GenerateRequest } from "../types.ts";
import type { RemoteResult } from "./RemoteBackend.ts";

/**
 * A reply with nothing to say, that nobody saw: sampled once more (another seed) on the same backend, whose cache
 * holds the prompt. The local engine does the same inside its generation (replyRules.ts resampleEmptyReply: a
 * reply that opens with a stop trigger, a typed turn's delimiter among them) and holds the end of turn back until
 * the first visible character; llama-server has no such hold (no min_tokens), so an empty reply here is either kind.
 * Without it a typed turn whose model opened with the tail's delimiter came back with no words three times as often
 * as on the local engine (BENCHMARKS.md, "Remote engines: the words phase"), each one a resample of the whole turn
 * by the reply guard.
 */
export function emptyToResample(r: RemoteResult, req: GenerateRequest, streamed: boolean): boolean {
  return r.text === "" && r.finishReason === "stop" && !streamed && !req.jsonSchema && (req.temperature ?? 0.7) > 0 && !req.signal?.aborted && !req.stopSignal?.aborted;
}

/** The second sample, its costs added to the first's; the first (empty) when the second fails. */
export async function resampled(first: RemoteResult, again: () => Promise<RemoteResult>, firstStart: number): Promise<RemoteResult> {
  const secondStart = performance.now();
  const second = await again().catch(() => null);
  if (!second) return first;
  return {
    ...second,
    evaluatedPromptTokens: first.evaluatedPromptTokens + second.evaluatedPromptTokens,
    completionTokens: first.completionTokens + second.completionTokens,
    cachedPromptTokens: first.cachedPromptTokens + second.cachedPromptTokens,
    // the first token the caller could have seen is the second sample's
    timeToFirstTokenMs: secondStart - firstStart + second.timeToFirstTokenMs,
    serverMs: first.serverMs !== null && second.serverMs !== null ? first.serverMs + second.serverMs : second.serverMs,
  };
}
