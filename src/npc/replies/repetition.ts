import type { RepetitionControl } from "../../llm/types.ts";

/**
 * The repetition control of NPC replies (local engine and remote servers alike): none. The loop cut (loopCut.ts) and
 * the guard's repetition checks end a reply that repeats itself; a sampling penalty was not measured to do better
 * (BENCHMARKS.md "Replies in character"), and a repeat penalty also penalises the names and numbers a grounded
 * reply must repeat from its notes.
 */
export const NPC_REPETITION: RepetitionControl | undefined = undefined;
