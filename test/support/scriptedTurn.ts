import type { GenerateRequest, GenerateResult } from "../../src/generation/types.ts";
import type { ReplyContext } from "../../src/npc/replies/detectors.ts";

// One turn of the reply guard with a scripted backend: the backend, the turn's reply context and its request. What
// the guard tests put under test is the guard's choice of samples, not a model's.

/** Word-sized pieces, as a backend streams them. */
export const pieces = (text: string) => text.match(/\s*\S+/g) ?? [];

/**
 * A backend that says the scripted replies in order, one per call, a piece at a time (words, or `opts.pieces`), and
 * honours the stop signal as the real ones do (the reply ends where it is, finishReason "stop"; no leading space is
 * streamed). The first call evaluates the prompt; a resample finds it cached. It stands in for the model: what is
 * under test is what the guard asks of each sample (how many, at which temperature, steered from what) and which
 * sample it returns.
 */
export function scripted(replies: string[], opts: { pieces?: (text: string) => string[] } = {}) {
  const split = opts.pieces ?? pieces;
  const calls: GenerateRequest[] = [];
  const llm = {
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      calls.push(req);
      let said = "";
      for (const p of split(replies[calls.length - 1] ?? "")) {
        if (req.stopSignal?.aborted) break;
        req.onToken?.(said ? p : p.trimStart());
        said += p;
      }
      return {
        text: said.trim(),
        promptTokens: 100,
        evaluatedPromptTokens: calls.length === 1 ? 100 : 3,
        completionTokens: split(said).length,
        finishReason: "stop",
        timeToFirstTokenMs: 10,
      };
    },
  };
  return { llm, calls };
}

/**
 * A turn's reply context holding only what a test names: no other people, no prompt lines, notes, secrets or previous
 * reply unless given; two sentences at most.
 */
export function replyContext(c: Pick<ReplyContext, "playerLine" | "mindName"> & Partial<ReplyContext>): ReplyContext {
  return { otherNames: [], structuralLines: [], narrativeLines: [], noteNames: [], previousReply: null, maxSentences: 2, secrets: [], ...c };
}

/** A turn's request: 64 tokens at 0.7 from seed 40 (a resample takes the next seed), no messages (the backend is scripted). */
export function turnRequest(r: Partial<GenerateRequest> = {}): GenerateRequest {
  return { conversationKey: "k", messages: [], maxTokens: 64, temperature: 0.7, seed: 40, ...r };
}
