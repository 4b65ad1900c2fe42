import type { Token } from "node-llama-cpp";
import { choiceProbabilities, gateChoice } from "../../llm/gateChoices.ts";
import type { TailGate, TailGateResult } from "../../llm/types.ts";
import { AttemptError, ContextOverflowError } from "./attemptErrors.ts";
import type { GrammarChoice, ServerCalls } from "./completeStructured.ts";
import type { RemoteBackend } from "./RemoteBackend.ts";
import { serverSpellings } from "./serverSpelling.ts";

/**
 * Added to the logits of the choices' tokens in the probe, so that they hold all but a vanishing share of the
 * server's sampling distribution and all come back among its top probabilities. Adding the same amount to each
 * keeps their ratios, and the gate normalises over them (gateChoices), so the reading is the model's own.
 */
const LIFT = 100;

/** What the gate read on the server: its choice, and the prompt tokens the probe evaluated. */
export interface RemoteGateRead {
  result: TailGateResult;
  evaluatedTokens: number;
}

interface ProbeAnswer {
  index?: number;
  completion_probabilities?: { top_probs?: { id?: number; prob?: number }[] }[];
  timings?: { prompt_n?: number };
}

/**
 * The action gate (llm/types.ts TailGate) read on llama-server, as the local engine reads it (readTailGate), with
 * the same arithmetic (gateChoices). The points where the choices' tokens part are known from their tokens alone,
 * so they are found first (choiceProbabilities over placeholder logits), then all read in ONE /completion: one
 * prompt per point (the rendered prompt, the words and the delimiter as text, then that point's path as token
 * ids), one token generated each, with the server's post-sampling probabilities (`n_probs`,
 * `post_sampling_probs`) of the choices' tokens lifted above all others (`logit_bias`) and no sampler that could
 * drop one (`samplers: []`, so top-k, min-p and temperature do not apply). The slot's prompt cache holds the
 * prompt and the words, so each point costs the delimiter and its path's few tokens. Null: the server answered
 * without probabilities (an older llama-server), and the choice is left to sampling.
 */
export async function readRemoteGate(backend: RemoteBackend, gate: TailGate, before: string, server: ServerCalls): Promise<RemoteGateRead | null> {
  const names = [gate.stay.choice, ...gate.act.choices];
  // spelled as the tail's grammar writes them after the delimiter, as the local engine spells them (serverSpelling.ts)
  const choices = (await serverSpellings(backend, names.map((n) => `${gate.prefix}${n}"`), server)) as Token[][];
  const points: { path: Token[]; candidates: Token[] }[] = [];
  await choiceProbabilities(choices, async (path, candidates) => {
    points.push({ path, candidates });
    return new Map(candidates.map((t) => [t, 0]));
  });
  const lifted = [...new Set(points.flatMap((p) => p.candidates))];
  const prompts = points.map((p) => [before, ...p.path]);
  const answer = await server.complete({
    prompt: prompts.length === 1 ? prompts[0] : prompts,
    n_predict: 1,
    n_probs: lifted.length,
    post_sampling_probs: true,
    samplers: [],
    logit_bias: lifted.map((t) => [t, LIFT]),
    temperature: 1,
    top_k: 0,
    top_p: 1,
    min_p: 0,
  });
  const answers = (Array.isArray(answer) ? answer : [answer]) as ProbeAnswer[];
  answers.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  if (answers.length !== points.length) return null;
  const read = new Map<string, Map<Token, number>>();
  let evaluatedTokens = 0;
  for (let i = 0; i < points.length; i++) {
    const top = answers[i].completion_probabilities?.[0]?.top_probs;
    if (!Array.isArray(top)) return null;
    const logits = new Map<Token, number>();
    for (const t of top) if (typeof t.id === "number" && typeof t.prob === "number" && t.prob > 0) logits.set(t.id as Token, Math.log(t.prob));
    read.set(points[i].path.join(","), logits);
    evaluatedTokens += answers[i].timings?.prompt_n ?? 0;
  }
  // A candidate missing from an answer had no probability the server could show: impossible, as locally.
  const probabilities = await choiceProbabilities(choices, async (path) => read.get(path.join(",")) ?? new Map());
  return { result: gateChoice(gate, probabilities), evaluatedTokens };
}

/**
 * The tail's grammar chosen by the gate: the `stay` way's (only "none") below the gate's probability, the `act`
 * way's (only the offered actions) at or above it. A server that gives no probabilities, or refuses the probe,
 * keeps the whole tail's grammar (the choice sampled, as before): `onUnread` is told, once per tail.
 */
export function gatedGrammar(
  backend: RemoteBackend,
  gate: TailGate,
  grammarOf: (schema: object) => string,
  on: { read: (r: RemoteGateRead) => void; unread: () => void },
): GrammarChoice {
  return async (prompt, server) => {
    let read: RemoteGateRead | null;
    try {
      read = await readRemoteGate(backend, gate, prompt, server);
    } catch (e) {
      // a 400 is a server that does not take the probe's fields; anything else fails the tail like its own request would
      if (!(e instanceof AttemptError && e.status === 400) || e instanceof ContextOverflowError) throw e;
      read = null;
    }
    if (!read) {
      on.unread();
      return undefined;
    }
    on.read(read);
    return grammarOf(read.result.took === "act" ? gate.act.jsonSchema : gate.stay.jsonSchema);
  };
}
