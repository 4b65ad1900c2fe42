import type { FinishReason } from "./types.ts";

/** How many tokens of whitespace a reply may open with before its turn may end (see tokenBias in LlmEngine.run). */
export const SILENT_TOKENS = 16;

// node-llama-cpp's default seed is the current time, which would give identical replies to identical prompts within a tick.
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/** `stopped`: the request's stopSignal (the reply was ended on purpose; an abort nobody else caused is then a stop). */
export function finishReasonOf(stopReason: string, runReason: "abort" | "timeout" | null, stopped?: AbortSignal): FinishReason {
  switch (stopReason) {
    case "maxTokens":
      return "length";
    case "abort":
      return runReason ?? (stopped?.aborted ? "stop" : "abort");
    default:
      return "stop";
  }
}

/**
 * A small model sometimes opens its reply with one of our stop triggers (a `Player:` line, a `[Player]`
 * section): the reply is empty though nothing went wrong. When nothing was streamed yet, sampling it once
 * more with another seed is invisible to the client; a greedy request would only repeat itself.
 */
export function resampleEmptyReply(r: { text: string; stopReason: string; streamed: boolean; grammar: boolean; temperature: number; aborted: boolean }): boolean {
  return r.text === "" && r.stopReason === "customStopTrigger" && !r.streamed && !r.grammar && r.temperature > 0 && !r.aborted;
}
