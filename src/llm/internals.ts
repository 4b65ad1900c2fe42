import { LlamaJsonSchemaGrammar, type Llama, type LlamaContext, type LlamaContextSequence, type LlamaGrammarEvaluationState, type Token, type TokenBias } from "node-llama-cpp";

/**
 * Every place the engine reaches past node-llama-cpp's public API, in one file.
 *
 * package.json pins node-llama-cpp (3.22.1). Each internal is probed when an engine loads and
 * the result is shown in /readyz (`llm.internals`); the engine degrades when one is missing
 * (the `fallback` says how). test/llm/internals.test.ts has one canary per entry that fails
 * with the entry's message on a version bump that removes or changes it.
 *
 * Public API used where 3.22 covers a need (no longer internals): sequence state save/load
 * (`saveStateToFile` / `loadStateFromFile`) for KV snapshots, replacing the copy between live
 * sequences (`_copyStateFromOtherSequence`), and `evaluateWithoutGeneratingNewTokens` for
 * mind prefixes. They are probed too, as the snapshot store depends on them.
 */
export interface InternalProbe {
  name: string;
  kind: "internal" | "public";
  available: boolean;
  usedFor: string;
  fallback: string;
}

interface DecodeRequest {
  sequenceId: number;
  tokens: readonly number[];
}
export type DecodeTokens = (request: DecodeRequest, ...rest: unknown[]) => Promise<unknown>;

/** `LlamaContext._decodeTokens`: every decode of every sequence funnels through it. */
export function decodeTokensOf(context: LlamaContext): DecodeTokens | null {
  const fn = (context as unknown as { _decodeTokens?: unknown })._decodeTokens;
  return typeof fn === "function" ? (fn as DecodeTokens) : null;
}

/** Replaces `_decodeTokens` (the DecodeBatcher's gate); false when the internal is gone. */
export function wrapDecodeTokens(context: LlamaContext, wrap: (original: DecodeTokens) => DecodeTokens): boolean {
  const original = decodeTokensOf(context);
  if (!original) return false;
  (context as unknown as { _decodeTokens: DecodeTokens })._decodeTokens = wrap(original.bind(context) as DecodeTokens);
  return true;
}

/** `LlamaContextSequence._sequenceId`: llama.cpp's sequence id (decode batches carry it). */
export function sequenceIdOf(sequence: LlamaContextSequence): number | null {
  const id = (sequence as unknown as { _sequenceId?: unknown })._sequenceId;
  return typeof id === "number" ? id : null;
}

/**
 * `TokenBias._biases`: the map the native sampler reads. `TokenBias.set` deliberately skips
 * end-of-generation tokens, so "never end before N tokens" writes them straight into the map.
 */
export function biasMapOf(bias: TokenBias): Map<number, number> | null {
  const map = (bias as unknown as { _biases?: unknown })._biases;
  return map instanceof Map ? (map as Map<number, number>) : null;
}

/**
 * The GBNF node-llama-cpp writes for a JSON schema, without a loaded Llama: a remote pool sends it to llama-server
 * (jsonSchemaGbnf) and has no native runtime. Its generator is not exported; `LlamaJsonSchemaGrammar`'s constructor
 * writes the text, then hands it to `llama._bindings.AddonGrammar` to parse, which this stand-in skips.
 * test/llm/jsonSchemaGbnf.test.ts is the canary: the text equals what a real Llama's grammar holds.
 */
export function gbnfOfJsonSchema(schema: object): string {
  const standIn = { _bindings: { AddonGrammar: class {} } } as unknown as Llama;
  return new LlamaJsonSchemaGrammar(standIn, schema as never).grammar;
}

/** Stepping a grammar's evaluation state by hand: whether a token may come next, and taking one that was not sampled. */
export interface GrammarSteps {
  canBeNext(state: LlamaGrammarEvaluationState, token: Token): boolean;
  accept(state: LlamaGrammarEvaluationState, token: Token): void;
}

/**
 * `llama._bindings.AddonSampler`'s two grammar-state statics (node-llama-cpp's own token predictors use them):
 * a typed turn's tail appends the text its grammar forces without sampling it (sampleTail.ts), so the grammar
 * must take those tokens as if sampled.
 */
export function grammarStepsOf(llama: Llama): GrammarSteps | null {
  const sampler = (llama as unknown as { _bindings?: { AddonSampler?: Record<string, unknown> } })._bindings?.AddonSampler;
  const can = sampler?.canBeNextTokenForGrammarEvaluationState;
  const accept = sampler?.acceptGrammarEvaluationStateToken;
  if (typeof can !== "function" || typeof accept !== "function") return null;
  const native = (s: LlamaGrammarEvaluationState) => (s as unknown as { _state: unknown })._state;
  return {
    canBeNext: (state, token) => Boolean(can.call(sampler, native(state), token)),
    accept: (state, token) => void accept.call(sampler, native(state), token),
  };
}

/** Probes every internal (and the public state API the snapshots need) on a live context. */
export function probeInternals(context: LlamaContext, sequence: LlamaContextSequence, bias: TokenBias): InternalProbe[] {
  const fn = (o: object, name: string) => typeof (o as Record<string, unknown>)[name] === "function";
  return [
    {
      name: "LlamaContext._decodeTokens",
      kind: "internal",
      available: decodeTokensOf(context) !== null,
      usedFor: "lock-step batching of concurrent generations (DecodeBatcher)",
      fallback: "node-llama-cpp's own scheduling: concurrent generations take turns (~1.8× slower at 4)",
    },
    {
      name: "LlamaContextSequence._sequenceId",
      kind: "internal",
      available: sequenceIdOf(sequence) !== null,
      usedFor: "which sequence a decode belongs to (DecodeBatcher)",
      fallback: "no lock-step batching",
    },
    {
      name: "TokenBias._biases",
      kind: "internal",
      available: biasMapOf(bias) !== null,
      usedFor: "suppressing end-of-generation tokens until minTokens (TokenBias.set skips them)",
      fallback: "TokenBias.set(token, 'never'), which leaves end-of-generation tokens possible",
    },
    {
      name: "AddonSampler grammar-state statics",
      kind: "internal",
      available: grammarStepsOf(sequence.model.llama) !== null,
      usedFor: "a typed turn's tail: the text its grammar forces appended in one batch, not a decode step a token",
      fallback: "the tail sampled one token a decode step (the same text, more steps)",
    },
    {
      name: "LlamaContextSequence.saveStateToFile",
      kind: "public",
      available: fn(sequence, "saveStateToFile"),
      usedFor: "KV snapshots of conversations and mind prefixes",
      fallback: "no snapshots: evicted and restarted conversations are evaluated again",
    },
    {
      name: "LlamaContextSequence.loadStateFromFile",
      kind: "public",
      available: fn(sequence, "loadStateFromFile"),
      usedFor: "restoring KV snapshots",
      fallback: "no snapshots",
    },
    {
      name: "LlamaContextSequence.evaluateWithoutGeneratingNewTokens",
      kind: "public",
      available: fn(sequence, "evaluateWithoutGeneratingNewTokens"),
      usedFor: "evaluating a mind's static prompt in the background (mind prefix snapshots)",
      fallback: "no mind prefix snapshots: a new player's first turn is evaluated in full",
    },
  ];
}
