import { LlamaGrammarEvaluationState, type LlamaContextSequence, type LlamaGrammar, type LlamaModel, type Token, type TokenBias } from "node-llama-cpp";
import type { ForcedText } from "./forcedText.ts";

export interface TailLoop {
  sequence: LlamaContextSequence;
  model: LlamaModel;
  grammar: LlamaGrammar;
  forced: ForcedText;
  /** evaluated before the first sample: the context's last token again (its logits were spent priming) */
  first: Token[];
  /** the tail's first tokens, already on the sequence (the gate's kept prefix, whose last token is `first`) */
  written?: Token[];
  maxTokens: number;
  temperature: number;
  seed: number;
  noBias: TokenBias;
  signal: AbortSignal;
}

export interface TailLoopResult {
  text: string;
  /** the tail's tokens: the forced and the sampled (never an end-of-generation token) */
  tokens: number;
  forced: number;
  sampled: number;
  /** evaluations on the sequence (each one decode of a batch of tokens) */
  decodes: number;
  /** the tail's own tokens evaluated on the sequence (the last ones are left for the next turn to read) */
  fedBack: number;
  stopReason: "eogToken" | "maxTokens" | "abort";
}

/**
 * The tail sampled under its grammar, with what the grammar forces appended rather than sampled: after each sampled
 * token, the text that alone may follow (`","intensity":` after an emotion) is taken on the grammar and evaluated
 * in the same batch as that token, so a tail whose JSON is mostly keys and punctuation costs a decode step per
 * value, not per token. The text is what sampling would have written: where one text is allowed the grammar leaves
 * the model only its spelling to choose, and the model's tokenizer spells it. One sampler (and so one random
 * stream) for the whole tail: the tokens to evaluate next go back into the same evaluation.
 * A tail ends when its grammar is complete; the end-of-generation token is not sampled.
 */
export async function sampleTail(o: TailLoop): Promise<TailLoopResult> {
  const state = new LlamaGrammarEvaluationState({ model: o.model, grammar: o.grammar });
  const out: Token[] = [];
  let forced = 0;
  let sampled = 0;
  let decodes = 0;
  let fedBack = 0;
  const force = (): Token[] => {
    const text = o.forced.after(state);
    const taken = text ? o.forced.take(state, text, o.maxTokens - out.length) : [];
    out.push(...taken);
    forced += taken.length;
    return taken;
  };
  const result = (stopReason: TailLoopResult["stopReason"]): TailLoopResult => ({ text: o.model.detokenize(out), tokens: out.length, forced, sampled, decodes, fedBack, stopReason });
  // What the gate left written: taken on the grammar like forced text (a prefix every choice shares, so both of the
  // gate's grammars allow it); a refusal would mean the sequence holds what the grammar forbids, so it is an error.
  const written = o.written ?? [];
  if (written.length && o.forced.take(state, o.model.detokenize(written), written.length, written).length !== written.length) {
    throw new Error("the gate's prefix is not one the tail's grammar allows");
  }
  out.push(...written);
  forced += written.length;
  fedBack += written.length;
  const opening = force();
  if (o.forced.ended(state)) return result("eogToken");
  const it = o.sequence
    .evaluate([...o.first, ...opening], { grammarEvaluationState: state, temperature: o.temperature, seed: o.seed, tokenBias: o.noBias, yieldEogToken: true })
    [Symbol.asyncIterator]();
  try {
    decodes++;
    fedBack += opening.length;
    let next = await it.next();
    while (!next.done) {
      if (o.signal.aborted) return result("abort");
      const token = next.value;
      if (o.model.isEogToken(token)) return result("eogToken");
      out.push(token);
      sampled++;
      if (out.length >= o.maxTokens) return result("maxTokens");
      const more = force();
      if (o.forced.ended(state)) return result("eogToken");
      if (out.length >= o.maxTokens) return result("maxTokens");
      decodes++;
      fedBack += 1 + more.length;
      next = await it.next([token, ...more]);
    }
    return result(o.signal.aborted ? "abort" : "eogToken");
  } finally {
    await it.return(undefined);
  }
}
