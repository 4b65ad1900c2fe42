import type { ChatHistoryItem, LlamaChat, Token } from "node-llama-cpp";
import { choiceProbabilities, gateChoice } from "./gateChoices.ts";
import type { TailGate, TailGateResult } from "./types.ts";

export interface GateRead {
  /** the prompt's chat history, ending with the model turn the words filled in */
  history: ChatHistoryItem[];
  /** the words and the delimiter: the text the tail continues */
  before: string;
  gate: TailGate;
  signal: AbortSignal;
  tokenize: (text: string) => Token[];
}

/**
 * Reads the model's probabilities at the gate's branch and chooses. LlamaChat first brings the sequence to the
 * words and the delimiter (it evaluates only what its cache lacks; the one token it samples is thrown away), then
 * the branch's prefix and the choices' distinct tokens are evaluated on the sequence itself, logits read for the
 * candidate tokens only, and everything past the delimiter erased again: the tail that follows (generateTail)
 * finds the sequence as the words left it. Costs the prefix's few tokens and one token per point where choices part.
 */
export async function readTailGate(chat: LlamaChat, r: GateRead): Promise<TailGateResult> {
  const history: ChatHistoryItem[] = [...r.history.slice(0, -1), { type: "model", response: [r.before] }];
  await chat.generateResponse(history, { signal: r.signal, stopOnAbortSignal: true, maxTokens: 1, temperature: 0 });
  // Stopped on an abort, it returns: the turn ends here like a tail cut before its first token (generateTail).
  if (r.signal.aborted) throw r.signal.reason ?? new Error("aborted");
  const seq = chat.sequence;
  const ctx = seq.contextTokens;
  // Its logits are gone once evaluated, so the context's last token is evaluated again before the path.
  const base = ctx.length - 1;
  const last = ctx[base];
  await seq.eraseContextTokenRanges([{ start: base, end: ctx.length }]);
  const logitsAt = async (path: Token[], candidates: Token[]) => {
    const tokens = [last, ...path];
    const input = tokens.map((t, i) => (i === tokens.length - 1 ? ([t, { generateNext: { logits: { filter: { tokens: candidates } } } }] as const) : t));
    try {
      const out = await seq.controlledEvaluate(input as Parameters<typeof seq.controlledEvaluate>[0]);
      return out[tokens.length - 1]?.next.logits ?? new Map<Token, number>();
    } finally {
      await seq.eraseContextTokenRanges([{ start: base, end: base + tokens.length }]);
    }
  };
  const names = [r.gate.stay.choice, ...r.gate.act.choices];
  const choices = names.map((n) => r.tokenize(`${r.gate.prefix}${n}"`));
  return gateChoice(r.gate, await choiceProbabilities(choices, logitsAt));
}
