import type { RepetitionControl } from "../../llm/types.ts";

/**
 * The repetition control of NPC replies (local engine and remote servers alike). Chosen by bench/quality.ts on the
 * tuning worlds (BENCHMARKS.md "Replies in character"); none until measured.
 */
export const NPC_REPETITION: RepetitionControl | undefined = undefined;
