import type { GenerateRequest, GenerateResult } from "../../src/generation/types.ts";

/** Word-sized pieces, as a backend streams them. */
export const pieces = (text: string) => text.match(/\s*\S+/g) ?? [];

/**
 * A backend that says the scripted replies in order, one per call, a word a piece, and honours the stop signal as
 * the real ones do. It stands in for the model: what is under test is what the guard asks of each sample (how many,
 * at which temperature, steered from what) and which sample it returns.
 */
export function scripted(replies: string[]) {
  const calls: GenerateRequest[] = [];
  const llm = {
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      calls.push(req);
      let said = "";
      for (const p of pieces(replies[calls.length - 1] ?? "")) {
        if (req.stopSignal?.aborted) break;
        said += p;
        req.onToken?.(p);
      }
      return { text: said.trim(), promptTokens: 100, evaluatedPromptTokens: 3, completionTokens: pieces(said).length, finishReason: "stop", timeToFirstTokenMs: 10 };
    },
  };
  return { llm, calls };
}
