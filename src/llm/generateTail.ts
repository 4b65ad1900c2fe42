import type { ChatHistoryItem, LlamaChat, LlamaGrammar, Token, TokenBias } from "node-llama-cpp";
import { readTailGate } from "./readTailGate.ts";
import { finishReasonOf } from "./replyRules.ts";
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
  tokenize: (text: string) => Token[];
  signal: AbortSignal;
  runReason: () => "abort" | "timeout" | null;
  temperature: number;
  seed: number;
  noBias: TokenBias;
  countTokens: (text: string) => number;
  /** tokens the sequence has decoded so far (its token meter, input and output) */
  metered: () => number;
}

/**
 * The second phase of a typed turn: the same model response continued on the same sequence. The history's
 * last item becomes the model's response so far (the words and the delimiter), which LlamaChat continues:
 * it compares the rendered tokens with the sequence's cache and evaluates only what differs — the delimiter,
 * and any word tokens that re-tokenize differently — so the prompt is never read again. The grammar's
 * evaluation state is created per call (LlamaChat's GenerateResponseState), so it constrains only the new
 * tokens, never the words before them.
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
  // Every decode is an evaluated token of the continued text or a sampled token fed back (all but the last).
  const evaluated = () => Math.max(0, r.metered() - meteredBefore - Math.max(0, sampled - 1));
  const history: ChatHistoryItem[] = [...r.history.slice(0, -1), { type: "model", response: [r.words + r.tail.delimiter] }];
  let sampled = 0;
  let gate: TailGateResult | undefined;
  try {
    if (r.tail.gate && gateGrammars) {
      // The branch is decided on the model's probabilities, then the rest sampled under the way it took.
      gate = await readTailGate(chat, { history: r.history, before: r.words + r.tail.delimiter, gate: r.tail.gate, signal: r.signal, tokenize: r.tokenize });
      grammar = gate.took === "act" ? gateGrammars.act : gateGrammars.stay;
    }
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
    return {
      text: response.response.trim(),
      tokens: delimiterTokens + Math.max(0, sampled - (stop === "eogToken" ? 1 : 0)),
      evaluatedTokens: evaluated(),
      ms: performance.now() - startedAt,
      finishReason: finishReasonOf(stop, r.runReason()),
      ...(gate ? { gate } : {}),
    };
  } catch (err) {
    // Aborted before the tail's first token (LlamaChat throws then): a cut tail, not an error.
    if (!r.runReason()) throw err;
    return { text: "", tokens: delimiterTokens + sampled, evaluatedTokens: evaluated(), ms: performance.now() - startedAt, finishReason: r.runReason()! };
  }
}
