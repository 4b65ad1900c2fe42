import { existsSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, join, resolve } from "node:path";
import type { Embedder } from "./Embedder.ts";
import { Mutex } from "./Mutex.ts";

/** ONNX file names transformers.js looks for under onnx/, per dtype, in order of preference. */
const ONNX_VARIANTS = [
  ["model.onnx", "fp32"],
  ["model_fp16.onnx", "fp16"],
  ["model_quantized.onnx", "q8"],
  ["model_int8.onnx", "int8"],
  ["model_uint8.onnx", "uint8"],
  ["model_q4.onnx", "q4"],
] as const;

/**
 * Texts per forward pass. One: bench/embed-batch.ts measured the indexer's chunks (~300 words, ~400 tokens) on
 * all-MiniLM-L6-v2 int8 at 0.2–0.6× the chunks/s of one text a pass when 16 or 32 went together (the padded
 * [batch, seq, seq] attention tensors outgrow the caches; there is no padding left to save at one a pass).
 * Larger batches stay an option (`batch`), sorted by length so a pass pads little.
 */
export const DEFAULT_EMBED_BATCH = 1;

// biome-ignore lint: transformers.js pipeline objects are loosely typed
type Extractor = any;

/**
 * A sentence-embedding model from a local folder (`models/embeddings/<name>/`:
 * config.json, tokenizer.json, tokenizer_config.json, onnx/model*.onnx) run by
 * transformers.js: feature extraction, mean pooling, L2 normalisation. Nothing
 * is ever downloaded (DESIGN.md: nothing is fetched at run time).
 */
export class TransformersEmbedder implements Embedder {
  private readonly lock = new Mutex();

  private constructor(
    readonly id: string,
    readonly dims: number,
    private extractor: Extractor | null,
    private readonly batch: number,
  ) {}

  /**
   * `threads`: ONNX Runtime intra-op threads (default: every core; pass the server's `threads` setting);
   * `batch`: texts per forward pass.
   */
  static async load(dir: string, opts: { threads?: number; batch?: number } = {}): Promise<TransformersEmbedder> {
    const abs = resolve(dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new Error(`Embedding model folder not found: ${abs}`);
    for (const f of ["config.json", "tokenizer.json"]) {
      if (!existsSync(join(abs, f))) throw new Error(`Embedding model folder ${abs} has no ${f}`);
    }
    const variant = ONNX_VARIANTS.find(([file]) => existsSync(join(abs, "onnx", file)));
    if (!variant) throw new Error(`Embedding model folder ${abs} has no onnx/model.onnx (or a quantized variant)`);

    const { env, pipeline } = await import("@huggingface/transformers");
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    const threads = Math.max(1, Math.floor(opts.threads ?? availableParallelism()));
    const extractor = await pipeline("feature-extraction", abs, {
      local_files_only: true,
      device: "cpu",
      dtype: variant[1],
      session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
    });
    // One forward pass tells the dimension (configs name it hidden_size, d_model, dim, ...) and proves the model runs.
    const probe = await extractor(["dimension probe"], { pooling: "mean", normalize: true });
    const dims = Number(probe.dims[probe.dims.length - 1]);
    if (!(dims > 0)) throw new Error(`Embedding model ${abs} produced no vector`);
    return new TransformersEmbedder(`onnx:${basename(abs)}`, dims, extractor, Math.max(1, Math.floor(opts.batch ?? DEFAULT_EMBED_BATCH)));
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    // One forward pass at a time: ONNX Runtime already uses every core for one.
    return this.lock.run(async () => {
      if (!this.extractor) throw new Error(`Embedder ${this.id} is disposed`);
      // A pass pads every text to its longest: texts of like length batched together waste no work on padding
      // (the indexer hands over up to 256 chunks of a few dozen to a few hundred tokens at once). The order is
      // the texts' length in characters, a stand-in for tokens that costs nothing; results go back in input order.
      const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
      const out = new Array<Float32Array>(texts.length);
      for (let i = 0; i < order.length; i += this.batch) {
        const ids = order.slice(i, i + this.batch);
        const t = await this.extractor(
          ids.map((j) => texts[j]),
          { pooling: "mean", normalize: true },
        );
        const data = t.data as Float32Array;
        ids.forEach((j, b) => {
          out[j] = data.slice(b * this.dims, (b + 1) * this.dims);
        });
        t.dispose?.();
      }
      return out;
    });
  }

  async dispose(): Promise<void> {
    await this.lock.run(async () => {
      const e = this.extractor;
      this.extractor = null;
      await e?.dispose?.();
    });
  }
}
