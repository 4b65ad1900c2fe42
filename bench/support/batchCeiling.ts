// What the hardware allows: n sequences decoded in perfect lock-step straight on node-llama-cpp's
// native context (one decode call carrying one token of each sequence, then one sample each), with
// no chat layer and no scheduling. The engine's concurrency ratio is read against this.
import type { LlamaContext, LlamaModel } from "node-llama-cpp";

// The sampler class is internal to node-llama-cpp (no types, not exported); package.json pins 3.22.1.
const { LlamaSampler } = (await import("../../node_modules/node-llama-cpp/dist/evaluator/LlamaContext/LlamaSampler.js")) as {
  LlamaSampler: new (model: LlamaModel) => { _sampler: unknown; applyConfig(config: object): void };
};

interface NativeContext {
  initBatch(size: number): void;
  addToBatch(sequenceId: number, firstTokenIndex: number, tokens: Uint32Array, logitIndexes: Uint32Array): Uint32Array | number[];
  decodeBatch(): Promise<void>;
  sampleToken(batchLogitIndex: number, sampler: unknown): Promise<number | [number, ...unknown[]]>;
  removeTokenCellsFromSequence(sequenceId: number, start: number, end: number): boolean;
}

export interface CeilingRun {
  /** Aggregate tokens/s of the n sequences. */
  rate: number;
  /** Milliseconds per decode call. */
  decodeMs: number;
}

export interface BatchCeiling {
  /** Decodes `steps` lock-step tokens on the first n sequences, then drops them again. */
  run(n: number): Promise<CeilingRun>;
  dispose(): void;
}

/**
 * Fills `sequences` sequences of `context` with `promptTokens` tokens of `text`; `run(n)` then
 * decodes `steps` tokens on the first n of them in perfect lock-step.
 */
export async function prepareBatchCeiling(
  model: LlamaModel,
  context: LlamaContext,
  opts: { text: string; promptTokens: number; sequences: number; steps: number },
): Promise<BatchCeiling> {
  const native = (context as unknown as { _ctx: NativeContext })._ctx;
  const prompt = model.tokenize(opts.text.repeat(Math.ceil((opts.promptTokens * 8) / Math.max(1, opts.text.length)))).slice(0, opts.promptTokens);
  const sequences = Array.from({ length: opts.sequences }, () => context.getSequence());
  for (const s of sequences) await s.evaluateWithoutGeneratingNewTokens(prompt);
  const ids = sequences.map((s) => (s as unknown as { _sequenceId: number })._sequenceId);
  const samplers = sequences.map(() => {
    const sampler = new LlamaSampler(model);
    sampler.applyConfig({ temperature: 0.7, topK: 40, topP: 0.95, minP: 0, seed: 1 });
    return sampler;
  });

  const run = async (n: number): Promise<CeilingRun> => {
    const next = Array.from({ length: n }, (_, i) => prompt[i % prompt.length] as number);
    let decodeMs = 0;
    const started = performance.now();
    for (let step = 0; step < opts.steps; step++) {
      const t = performance.now();
      native.initBatch(n);
      const logitIndexes: number[] = [];
      for (let i = 0; i < n; i++) logitIndexes.push(native.addToBatch(ids[i], prompt.length + step, Uint32Array.of(next[i]), Uint32Array.of(0))[0]);
      await native.decodeBatch();
      decodeMs += performance.now() - t;
      const sampled = await Promise.all(logitIndexes.map((li, i) => native.sampleToken(li, samplers[i]._sampler)));
      for (let i = 0; i < n; i++) next[i] = typeof sampled[i] === "number" ? (sampled[i] as number) : (sampled[i] as [number])[0];
    }
    const elapsed = performance.now() - started;
    for (let i = 0; i < n; i++) native.removeTokenCellsFromSequence(ids[i], prompt.length, -1);
    return { rate: (n * opts.steps * 1000) / elapsed, decodeMs: decodeMs / opts.steps };
  };
  await run(1); // warm-up
  return { run, dispose: () => sequences.forEach((s) => s.dispose()) };
}
