import type { AppContext } from "../../core/context.ts";
import { kept } from "./secretFraming.ts";

/**
 * The smallest chat models read their prompt without the notes of the secrets they keep.
 *
 * Why: a kept secret reaches the prompt as a note marked "(your secret: you know it, but you never tell it to
 * anyone)" (secretFraming.ts). SmolLM2-135M-Instruct reads that instruction as being about the whole topic the
 * secret touches: Mother Ilse's secret is how she reckons the King's Tide, and with it marked in her prompt she said
 * the Tide's year and period in 0 of 12 first samples (her naive prompt, the secret pasted unmarked: 5 of 12; her
 * prompt without the marked note: 5 of 12), and across her five questions 4 of 30 against 12 of 30
 * (bench/smolProbe.ts, BENCHMARKS.md "Replies in character: SmolLM2 and its naive baseline"). A model this small
 * keeps no secret on its own either (the reply guard catches its slips): what it does not read it cannot tell.
 *
 * Decided where the turn's prompt is written (fitStaticPrompt.ts for the static prompt, prepareTurn.ts for the
 * turns), so the text the model is given is the one counted, fitted, warmed as a mind's prefix, shown by the admin
 * preview and sent, locally or to a remote llama-server alike (which renders its own template from the messages).
 * The notes stay with the turn: the reply guard checks replies against them (src/npc/replies/turnGuard.ts), the
 * preview's trace lists them marked secret, and the session keeps them. A secret whose reveal condition holds is no
 * longer kept (it carries no mark) and is read as any note.
 */

/** Chat models with fewer parameters than this (SmolLM2-135M-Instruct, 135M by its GGUF; not Gemma 3 270M, 268M, nor Qwen2.5-Coder-0.5B, 630M). */
export const SMALLEST_CHAT_PARAMETERS = 200_000_000;

export function isSmallestChatModel(totalParameters: number): boolean {
  return totalParameters > 0 && totalParameters < SMALLEST_CHAT_PARAMETERS;
}

/** Whether the prompt carries the kept secrets' notes ("read") or is written without them ("left out"). */
export type KeptSecrets = "read" | "left out";

/**
 * For the model the server generates with: the local GGUF's size, or the smallest a remote pool's llama-servers
 * report (RemotePool.modelParameters). A model of unknown size (no backend, a server that does not say) reads them.
 */
export function keptSecretsFor(ctx: Pick<AppContext, "llm" | "generation">): KeptSecrets {
  const parameters = (ctx.generation ?? ctx.llm)?.modelParameters ?? null;
  return parameters !== null && isSmallestChatModel(parameters) ? "left out" : "read";
}

/** The notes the model reads: all of them, or all but the kept secrets. */
export function notesRead<T extends { secret?: boolean; revealed?: boolean; documentId?: string }>(notes: T[], secrets: KeptSecrets): T[] {
  return secrets === "read" ? notes : notes.filter((n) => !kept(n));
}
