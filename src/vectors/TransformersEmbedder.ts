import { existsSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, join, resolve } from "node:path";
import type { Embedder } from "./Embedder.ts";
import { Mutex } from "./Mutex.ts";
import { fuseGelu } from "./onnx/fuseGelu.ts";
import { type Int8MatMulOptions, int8MatMuls } from "./onnx/int8MatMuls.ts";
import { int8WeightsForThisCpu } from "./onnx/int8Weights.ts";
import { pruneNanGuards } from "./onnx/pruneNanGuards.ts";
import { accumulate, type LongTextMode, meanNormalised, type Segment, segmentsOf } from "./tokenWindows.ts";

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

// transformers.js tokenizers are loosely typed
type Tokenizer = any;
type Session = import("onnxruntime-node").InferenceSession;

export interface TransformersEmbedderOptions {
  /** ONNX Runtime intra-op threads (default: every core; pass the server's `threads` setting) */
  threads?: number;
  /** segments per forward pass */
  batch?: number;
  /**
   * Word pieces of a text the model reads, [CLS] and [SEP] included; 0 or unset: as many as the model can (its
   * tokenizer's model_max_length, at most its position table). A cut below that is part of the embedder's id, so
   * changing it re-embeds the lore (vectors of one project all come from one way of reading).
   */
  maxTokens?: number;
  /** what becomes of the pieces past `maxTokens`: cut off, or read in further windows (default truncate) */
  longText?: LongTextMode;
  /** windows a text is read in at most, with longText "windows" (default 4) */
  maxWindows?: number;
  /** ONNX Runtime graph optimisation level (default "all") */
  graphOptimization?: "disabled" | "basic" | "extended" | "all";
  /**
   * Whether ONNX Runtime's intra-op threads spin while they wait for work (its default: yes). With 2 threads on a
   * busy box spinning doubled the CPU a pass costs; it matters only with `threads` > 1.
   */
  spinning?: boolean;
  /** Drop the softmax NaN guards of a PyTorch attention export (bit-identical output, less work; default true) */
  pruneGuards?: boolean;
  /**
   * Multiply the model's int8 weights in integers (int8MatMuls; default: yes, with the weights' signedness this CPU
   * runs without saturation); false: in float, as exported.
   */
  int8?: Int8MatMulOptions | false;
  /** Fuse the exact GELU's five nodes into ONNX Runtime's Gelu op (fuseGelu; default true) */
  fuseGelu?: boolean;
}

/**
 * A sentence-embedding model from a local folder (`models/embeddings/<name>/`:
 * config.json, tokenizer.json, tokenizer_config.json, onnx/model*.onnx): transformers.js's
 * tokenizer, the ONNX graph run by onnxruntime-node (the session transformers.js would make, but
 * from the model's bytes, so that dead work can be cut out of the graph first: pruneNanGuards),
 * mean pooling, L2 normalisation. Nothing is ever downloaded (DESIGN.md: nothing is fetched at run time).
 */
export class TransformersEmbedder implements Embedder {
  private readonly lock = new Mutex();

  private constructor(
    readonly id: string,
    readonly dims: number,
    /** transformers.js's tokenizer of the model (benches read it) */
    readonly tokenizer: Tokenizer,
    private session: Session | null,
    private readonly batch: number,
    /** word pieces a segment holds, [CLS] and [SEP] included */
    readonly maxTokens: number,
    private readonly longText: LongTextMode,
    private readonly maxWindows: number,
  ) {}

  static async load(dir: string, opts: TransformersEmbedderOptions = {}): Promise<TransformersEmbedder> {
    const abs = resolve(dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new Error(`Embedding model folder not found: ${abs}`);
    for (const f of ["config.json", "tokenizer.json"]) {
      if (!existsSync(join(abs, f))) throw new Error(`Embedding model folder ${abs} has no ${f}`);
    }
    const variant = ONNX_VARIANTS.find(([file]) => existsSync(join(abs, "onnx", file)));
    if (!variant) throw new Error(`Embedding model folder ${abs} has no onnx/model.onnx (or a quantized variant)`);

    const { env, AutoTokenizer } = await import("@huggingface/transformers");
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    const tokenizer = await AutoTokenizer.from_pretrained(abs, { local_files_only: true });
    const config = JSON.parse(readFileSync(join(abs, "config.json"), "utf8")) as { max_position_embeddings?: number };
    const session = await openSession(join(abs, "onnx", variant[0]), opts);
    const probe = new TransformersEmbedder("probe", 0, tokenizer, session, 1, 512, "truncate", 1);
    // One forward pass tells the dimension (configs name it hidden_size, d_model, dim, ...) and proves the model runs.
    const ids = tokenizer.encode("dimension probe") as number[];
    let dims = 0;
    await probe.forward([{ text: 0, ids }], ids.length, (hidden) => (dims = hidden.length / ids.length));
    if (!(dims > 0) || !Number.isInteger(dims)) throw new Error(`Embedding model ${abs} produced no vector`);
    // The position table bounds what the model can read at once (BERT: 512); a tokenizer may claim more.
    const modelMax = Math.min(512, Number(tokenizer.model_max_length) || 512, Number(config.max_position_embeddings) || 512);
    const maxTokens = opts.maxTokens ? Math.max(8, Math.min(modelMax, Math.floor(opts.maxTokens))) : modelMax;
    const windows = opts.longText === "windows";
    const reading = windows ? `@w${maxTokens}` : maxTokens === modelMax ? "" : `@${maxTokens}`;
    return new TransformersEmbedder(
      `onnx:${basename(abs)}${reading}`,
      dims,
      tokenizer,
      session,
      Math.max(1, Math.floor(opts.batch ?? DEFAULT_EMBED_BATCH)),
      maxTokens,
      opts.longText ?? "truncate",
      Math.max(1, Math.floor(opts.maxWindows ?? 4)),
    );
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    // One forward pass at a time: ONNX Runtime already uses every core for one (and onnxruntime-node runs a pass on
    // the JavaScript thread, so two sessions in one process would not run side by side anyway).
    return this.lock.run(async () => {
      if (!this.session) throw new Error(`Embedder ${this.id} is disposed`);
      const tokenizer = this.tokenizer;
      const segments: Segment[] = texts.flatMap((text, i) => segmentsOf(i, tokenizer.encode(text) as number[], this.maxTokens, this.longText, this.maxWindows));
      // A pass pads every segment to its longest: segments of like length batched together waste no work on
      // padding (the indexer hands over up to 256 chunks of a few dozen to a few hundred tokens at once).
      segments.sort((a, b) => a.ids.length - b.ids.length);
      const sums = texts.map(() => new Float32Array(this.dims));
      const counts = texts.map(() => 0);
      for (let i = 0; i < segments.length; i += this.batch) {
        const pass = segments.slice(i, i + this.batch);
        const width = pass[pass.length - 1].ids.length;
        await this.forward(pass, width, (hidden) => accumulate(hidden, pass, width, this.dims, sums, counts));
      }
      return sums.map((sum, i) => meanNormalised(sum, counts[i]));
    });
  }

  /** One forward pass over `pass`, each segment padded to `width`; `use` reads the last hidden state, [segments, width, dims]. */
  private async forward(pass: Segment[], width: number, use: (hidden: Float32Array) => void): Promise<void> {
    const session = this.session;
    if (!session) throw new Error(`Embedder ${this.id} is disposed`);
    const { Tensor } = await import("onnxruntime-node");
    const pad = Number(this.tokenizer.pad_token_id ?? 0);
    const ids = new BigInt64Array(pass.length * width).fill(BigInt(pad));
    const mask = new BigInt64Array(pass.length * width);
    pass.forEach((s, b) => {
      for (let t = 0; t < s.ids.length; t++) {
        ids[b * width + t] = BigInt(s.ids[t]);
        mask[b * width + t] = 1n;
      }
    });
    const shape = [pass.length, width];
    // What transformers.js feeds a BERT-like encoder: the ids, the mask, and all-zero token types if it takes them.
    const feeds: Record<string, InstanceType<typeof Tensor>> = { input_ids: new Tensor("int64", ids, shape), attention_mask: new Tensor("int64", mask, shape) };
    if (session.inputNames.includes("token_type_ids")) feeds.token_type_ids = new Tensor("int64", new BigInt64Array(pass.length * width), shape);
    const unknown = session.inputNames.filter((n) => !(n in feeds));
    if (unknown.length) throw new Error(`Embedding model ${this.id} wants inputs this embedder does not make: ${unknown.join(", ")}`);
    const name = ["last_hidden_state", "logits", "token_embeddings"].find((n) => session.outputNames.includes(n)) ?? session.outputNames[0];
    const out = await session.run(feeds, [name]);
    const data = out[name].data;
    try {
      use(data instanceof Float32Array ? data : Float32Array.from(data as ArrayLike<number>));
    } finally {
      for (const t of Object.values(out)) t.dispose();
    }
  }

  async dispose(): Promise<void> {
    await this.lock.run(async () => {
      const s = this.session;
      this.session = null;
      await s?.release();
    });
  }
}

/** The model's ONNX Runtime session; the graph pruned first unless the model keeps external data beside it. */
async function openSession(file: string, opts: TransformersEmbedderOptions): Promise<Session> {
  const { InferenceSession } = await import("onnxruntime-node");
  const threads = Math.max(1, Math.floor(opts.threads ?? availableParallelism()));
  const options: import("onnxruntime-node").InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: opts.graphOptimization ?? "all",
    ...(opts.spinning === false ? { extra: { session: { intra_op: { allow_spinning: "0" } } } } : {}),
  };
  // Weights in a separate file are found relative to the model's path, which a buffer does not have.
  const external = existsSync(`${file}_data`) || existsSync(`${file}.data`);
  if (external || (opts.pruneGuards === false && opts.int8 === false && opts.fuseGelu === false)) return InferenceSession.create(file, options);
  let model: Uint8Array = readFileSync(file);
  if (opts.pruneGuards !== false) model = pruneNanGuards(model).model;
  if (opts.fuseGelu !== false) model = fuseGelu(model).model;
  if (opts.int8 !== false) model = int8MatMuls(model, { weights: int8WeightsForThisCpu(), ...opts.int8 }).model;
  return InferenceSession.create(model, options);
}
