import type { GenerateTimings } from "./types.ts";

export function emptyTimings(): GenerateTimings {
  return { tokenizeMs: 0, queueMs: 0, kvSaveMs: 0, kvRestoreMs: 0, evalMs: 0, firstSampleMs: 0, warmSource: "none" };
}

/** Where an interaction's time went, as filled in by the interact service and the engine. */
export interface InteractTiming {
  generateMs: number;
  /** Everything before the model call: mind, retrieval (lore, memories), prompt assembly. */
  prepareMs?: number;
  /** The engine's breakdown of the time to the first token. */
  llm?: GenerateTimings;
  /** SSE: from the first token to the response being handed to the client. */
  flushMs?: number;
}

/**
 * A `Server-Timing` header value: the parts of the time to the first token (retrieval, tokenize,
 * queue, kv-save, kv-restore, eval, sample, flush), then the whole generation and what was not
 * generation. The warm source rides on the restore entry's description.
 */
export function serverTimingHeader(t: InteractTiming, totalMs: number): string {
  const entry = (name: string, ms: number | undefined, desc?: string) =>
    ms === undefined ? null : `${name};${desc ? `desc="${desc}";` : ""}dur=${ms.toFixed(1)}`;
  const l = t.llm;
  return [
    entry("retrieval", t.prepareMs),
    entry("tokenize", l?.tokenizeMs),
    entry("queue", l?.queueMs),
    entry("kv-save", l?.kvSaveMs),
    entry("kv-restore", l?.kvRestoreMs, l?.warmSource),
    entry("eval", l?.evalMs),
    entry("sample", l?.firstSampleMs),
    entry("flush", t.flushMs),
    entry("generate", t.generateMs),
    entry("overhead", totalMs - t.generateMs),
  ]
    .filter((e) => e !== null)
    .join(", ");
}
