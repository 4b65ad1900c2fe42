import type { Token } from "node-llama-cpp";
import type { TailGate, TailGateResult } from "./types.ts";

/** The model's logits for `candidates` as the next token after the branch's context and `path` (missing: impossible). */
export type LogitsAt = (path: Token[], candidates: Token[]) => Promise<Map<Token, number>>;

/**
 * The probability of each choice at a branch, given each choice's tokens (the text up to and through the choice,
 * e.g. `{"actions":[{"name":"none"`): the product, over the points where the choices' tokens part, of the model's
 * probability for the token each takes, normalised over the tokens the choices could take there — what sampling
 * under a grammar that allows only these choices sees. Where one token is all that any remaining choice allows,
 * the grammar forces it, so nothing is read. Only each choice's own tokenization is scored (a model may spell a
 * choice in other tokens, e.g. `n`,`one`; a grammar allows those, but a model rarely takes them).
 */
export async function choiceProbabilities(choices: Token[][], logitsAt: LogitsAt): Promise<number[]> {
  const out = choices.map(() => 0);
  const walk = async (members: number[], depth: number, path: Token[], mass: number): Promise<void> => {
    if (members.length === 1) {
      out[members[0]] += mass;
      return;
    }
    const at = [...path];
    let d = depth;
    while (members.every((i) => choices[i].length > d && choices[i][d] === choices[members[0]][d])) at.push(choices[members[0]][d++]);
    const groups = new Map<Token, number[]>();
    for (const i of members) if (choices[i].length > d) groups.set(choices[i][d], [...(groups.get(choices[i][d]) ?? []), i]);
    // A choice whose tokens all lie inside another's (same tokens, then more) has no token of its own here:
    // it shares the mass only when every remaining choice ended.
    if (groups.size === 0) {
      for (const i of members) out[i] += mass / members.length;
      return;
    }
    const logits = await logitsAt(at, [...groups.keys()]);
    const probs = softmax([...groups.keys()].map((t) => logits.get(t) ?? -Infinity));
    let k = 0;
    for (const [token, group] of groups) {
      const p = probs[k++];
      if (p > 0) await walk(group, d + 1, [...at, token], mass * p);
    }
  };
  await walk(choices.map((_, i) => i), 0, [], 1);
  return out;
}

function softmax(logits: number[]): number[] {
  const max = Math.max(...logits);
  if (max === -Infinity) return logits.map(() => 1 / logits.length);
  const e = logits.map((l) => Math.exp(l - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/** The gate's choice: act only when the act choices together reach the gate's probability. */
export function gateChoice(gate: TailGate, probabilities: number[]): TailGateResult {
  // probabilities[0] is the stay choice, the rest the act choices in order (readTailGate's layout)
  const act = probabilities.slice(1).reduce((a, b) => a + b, 0);
  const total = act + probabilities[0];
  const actProbability = total > 0 ? act / total : 0;
  return { actProbability, took: actProbability >= gate.minProbability && gate.act.choices.length > 0 ? "act" : "stay" };
}
