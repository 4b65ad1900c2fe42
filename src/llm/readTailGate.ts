import type { ChatHistoryItem, LlamaChat, LlamaContextSequence, Token } from "node-llama-cpp";
import { choiceProbabilities, gateChoice } from "./gateChoices.ts";
import type { TailGate, TailGateResult } from "./types.ts";

/** A sequence brought to the words and the delimiter, its last token taken off again (to be evaluated for its logits). */
export interface PrimedTail {
  sequence: LlamaContextSequence;
  /** the context's last token, erased: the next evaluation starts with it */
  last: Token;
  /** where it stood: everything from here on is the tail's */
  base: number;
}

/**
 * Brings the sequence to the words and the delimiter: LlamaChat evaluates only what its cache lacks (the delimiter
 * and any word tokens that re-tokenize differently); the one token it samples is thrown away. A token's logits are
 * gone once it is evaluated, so the context's last token is erased, to be evaluated again before what follows.
 */
export async function primeTail(chat: LlamaChat, history: ChatHistoryItem[], before: string, signal: AbortSignal): Promise<PrimedTail> {
  const h: ChatHistoryItem[] = [...history.slice(0, -1), { type: "model", response: [before] }];
  await chat.generateResponse(h, { signal, stopOnAbortSignal: true, maxTokens: 1, temperature: 0 });
  // Stopped on an abort, it returns: the turn ends here like a tail cut before its first token (generateTail).
  if (signal.aborted) throw signal.reason ?? new Error("aborted");
  const sequence = chat.sequence;
  const ctx = sequence.contextTokens;
  const base = ctx.length - 1;
  const last = ctx[base];
  await sequence.eraseContextTokenRanges([{ start: base, end: ctx.length }]);
  return { sequence, last, base };
}

/**
 * Reads the model's probabilities at the gate's branch and chooses, on a primed sequence: the branch's prefix and
 * the choices' distinct tokens are evaluated on the sequence itself, logits read for the candidate tokens only,
 * and everything past the delimiter erased again, so the tail that follows finds the sequence as priming left it.
 * Costs the prefix's few tokens and one token per point where choices part.
 */
export async function readTailGate(p: PrimedTail, gate: TailGate, tokenize: (text: string) => Token[]): Promise<TailGateResult> {
  const seq = p.sequence;
  const logitsAt = async (path: Token[], candidates: Token[]) => {
    const tokens = [p.last, ...path];
    const input = tokens.map((t, i) => (i === tokens.length - 1 ? ([t, { generateNext: { logits: { filter: { tokens: candidates } } } }] as const) : t));
    try {
      const out = await seq.controlledEvaluate(input as Parameters<typeof seq.controlledEvaluate>[0]);
      return out[tokens.length - 1]?.next.logits ?? new Map<Token, number>();
    } finally {
      await seq.eraseContextTokenRanges([{ start: p.base, end: p.base + tokens.length }]);
    }
  };
  const names = [gate.stay.choice, ...gate.act.choices];
  const choices = names.map((n) => tokenize(`${gate.prefix}${n}"`));
  return gateChoice(gate, await choiceProbabilities(choices, logitsAt));
}
