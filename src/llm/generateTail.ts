import { LlamaGrammarEvaluationState, type ChatHistoryItem, type LlamaChat, type LlamaGrammar, type LlamaModel, type Token, type TokenBias } from "node-llama-cpp";
import type { ForcedText } from "./forcedText.ts";
import { primeTail, readTailGate } from "./readTailGate.ts";
import { finishReasonOf } from "./replyRules.ts";
import { sampleTail } from "./sampleTail.ts";
import type { TailGateResult, TailRequest, TailResult } from "./types.ts";

export interface TailRun {
  /** the prompt's chat history, ending with the empty model turn the words filled in */
  history: ChatHistoryItem[];
  /** the words as the reply returns them: the tail continues from exactly this text */
  words: string;
  tail: TailRequest;
  grammar: Promise<LlamaGrammar>;
  /** the grammars of the gate's two ways on (tail.gate's schemas), when the tail has a gate */
  gateGrammars?: Promise<{ stay: LlamaGrammar; act: LlamaGrammar }>;
  model: LlamaModel;
  /** what the grammar forces, appended in batches (null: node-llama-cpp's internals for it are gone; one token a step) */
  forced: ForcedText | null;
  tokenize: (text: string) => Token[];
  signal: AbortSignal;
  runReason: () => "abort" | "timeout" | null;
  temperature: number;
  seed: number;
  noBias: TokenBias;
  countTokens: (text: string) => number;
  /** tokens the sequence has decoded so far (its token meter, input and output) */
  metered: () => number;
  /** the context's decode calls so far (every sequence's) */
  decodeCalls: () => number;
}

/**
 * The second phase of a typed turn: the same model response continued on the same sequence. The sequence is
 * brought to the words and the delimiter (primeTail: only what its cache lacks is evaluated, never the prompt),
 * the gate read there when the tail has one, and the tail sampled under its grammar with what the grammar forces
 * appended in batches (sampleTail). The grammar's evaluation state is made per tail, so it constrains only the new
 * tokens, never the words before them. `stepwise` (or node-llama-cpp without the grammar internals) samples every
 * token of the tail one decode at a time through LlamaChat, as before.
 */
export async function generateTail(chat: LlamaChat, r: TailRun): Promise<TailResult> {
  const startedAt = performance.now();
  const delimiterTokens = r.countTokens(r.tail.delimiter);
  let grammar: LlamaGrammar;
  let gateGrammars: { stay: LlamaGrammar; act: LlamaGrammar } | undefined;
  try {
    grammar = await r.grammar;
    gateGrammars = r.tail.gate ? await r.gateGrammars : undefined;
  } catch (e) {
    return { text: "", tokens: 0, evaluatedTokens: 0, ms: performance.now() - startedAt, finishReason: "stop", error: e instanceof Error ? e.message : String(e) };
  }
  const meteredBefore = r.metered();
  const decodesBefore = r.decodeCalls();
  const before = r.words + r.tail.delimiter;
  const cost = (tokens: number, fedBack: number) => ({
    // Every decoded token is one of the continued text's, the context's last again, the gate's, or the tail's own fed back.
    evaluatedTokens: Math.max(0, r.metered() - meteredBefore - fedBack),
    modelTokens: r.metered() - meteredBefore,
    decodes: r.decodeCalls() - decodesBefore,
    tokens: delimiterTokens + tokens,
  });
  let sampled = 0;
  let gate: TailGateResult | undefined;
  try {
    const batched = r.forced && !r.tail.stepwise;
    const primed = batched || r.tail.gate ? await primeTail(chat, r.history, before, r.signal) : null;
    let reading: Awaited<ReturnType<typeof readTailGate>> | undefined;
    if (primed && r.tail.gate && gateGrammars) {
      // The branch is decided on the model's probabilities, then the rest sampled under the way it took. Batched,
      // the prefix the gate read through stays on the sequence as the tail's first tokens.
      // The choices spelled as the grammar writes them (never with a SentencePiece tokenizer's leading space).
      const spell = r.forced ? (t: string) => r.forced!.spell(t) : r.tokenize;
      reading = await readTailGate(primed, r.tail.gate, spell, !!batched);
      gate = { actProbability: reading.actProbability, took: reading.took };
      grammar = gate.took === "act" ? gateGrammars.act : gateGrammars.stay;
    }
    if (batched && primed) {
      let first = [reading?.next ?? primed.last];
      let written = reading?.kept;
      if (written?.length && !r.forced!.allows(new LlamaGrammarEvaluationState({ model: r.model, grammar }), written)) {
        // A prefix the grammar does not take as spelled (a tokenizer that merges it otherwise): it goes, and the
        // tail writes its own.
        await primed.sequence.eraseContextTokenRanges([{ start: primed.base, end: primed.sequence.contextTokens.length }]);
        [first, written] = [[primed.last], undefined];
      }
      const out = await sampleTail({ sequence: primed.sequence, model: r.model, grammar, forced: r.forced!, first, written, maxTokens: Math.max(1, Math.floor(r.tail.maxTokens)), temperature: r.temperature, seed: r.seed, noBias: r.noBias, signal: r.signal });
      return {
        text: out.text.trim(),
        ...cost(out.tokens, out.fedBack),
        forcedTokens: out.forced,
        ms: performance.now() - startedAt,
        finishReason: finishReasonOf(out.stopReason, r.runReason()),
        ...(gate ? { gate } : {}),
      };
    }
    const history: ChatHistoryItem[] = [...r.history.slice(0, -1), { type: "model", response: [before] }];
    const response = await chat.generateResponse(history, {
      signal: r.signal,
      stopOnAbortSignal: true,
      maxTokens: Math.max(1, Math.floor(r.tail.maxTokens)),
      temperature: r.temperature,
      seed: r.seed,
      grammar,
      tokenBias: () => {
        sampled++;
        return r.noBias;
      },
    });
    const stop = response.metadata.stopReason;
    const own = Math.max(0, sampled - (stop === "eogToken" ? 1 : 0));
    return {
      text: response.response.trim(),
      ...cost(own, Math.max(0, sampled - 1)),
      ms: performance.now() - startedAt,
      finishReason: finishReasonOf(stop, r.runReason()),
      ...(gate ? { gate } : {}),
    };
  } catch (err) {
    // Aborted before the tail's first token (LlamaChat throws then): a cut tail, not an error.
    if (!r.runReason()) throw err;
    return { text: "", ...cost(sampled, Math.max(0, sampled - 1)), ms: performance.now() - startedAt, finishReason: r.runReason()! };
  }
}
