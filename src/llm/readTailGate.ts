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

/** What the gate read and chose; with `keep`, the branch's prefix it left evaluated for the tail to continue. */
export interface GateReading extends TailGateResult {
  /** the choices' common prefix: the tail's first tokens, on the sequence after the context's last token but for their last */
  kept?: Token[];
  /** the token to evaluate next (the prefix's last, or the context's last when the prefix is empty) */
  next?: Token;
}

/**
 * Reads the model's probabilities at the gate's branch and chooses, on a primed sequence: the branch's prefix and
 * the choices' distinct tokens are evaluated on the sequence itself and logits read for the candidate tokens only.
 * Costs the prefix's few tokens and one token per point where choices part. Without `keep` everything past the
 * delimiter is erased again, so the tail finds the sequence as priming left it; with `keep` the prefix every choice
 * shares (`{"actions":[{"name":"`, which the tail writes whatever the choice) stays, but for its last token, whose
 * logits are spent: the tail evaluates it again first, and does not evaluate the prefix a second time.
 */
export async function readTailGate(p: PrimedTail, gate: TailGate, tokenize: (text: string) => Token[], keep = false): Promise<GateReading> {
  const seq = p.sequence;
  // the common prefix, once evaluated and kept (deeper readings extend it)
  let kept: Token[] | null = null;
  const logitsAt = async (path: Token[], candidates: Token[]) => {
    const reuse = kept !== null && kept.length < path.length + 1 && kept.every((t, i) => path[i] === t);
    const tokens = reuse ? path.slice(kept!.length) : [p.last, ...path];
    const start = reuse ? p.base + 1 + kept!.length : p.base;
    const input = tokens.map((t, i) => (i === tokens.length - 1 ? ([t, { generateNext: { logits: { filter: { tokens: candidates } } } }] as const) : t));
    let stays = false;
    try {
      const out = await seq.controlledEvaluate(input as Parameters<typeof seq.controlledEvaluate>[0]);
      stays = keep && kept === null;
      if (stays) kept = [...path];
      return out[tokens.length - 1]?.next.logits ?? new Map<Token, number>();
    } finally {
      if (!stays) await seq.eraseContextTokenRanges([{ start, end: start + tokens.length }]);
    }
  };
  const names = [gate.stay.choice, ...gate.act.choices];
  const choices = names.map((n) => tokenize(`${gate.prefix}${n}"`));
  const result = gateChoice(gate, await choiceProbabilities(choices, logitsAt));
  if (kept === null) return result;
  // Left on the sequence: the context's last token and the prefix. Its last token goes, to be evaluated again.
  const left: Token[] = [p.last, ...(kept as Token[])];
  await seq.eraseContextTokenRanges([{ start: p.base + left.length - 1, end: p.base + left.length }]);
  return { ...result, kept, next: left[left.length - 1] };
}
