import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Config } from "../config/config.ts";
import type { Embedder } from "./Embedder.ts";
import { HashingEmbedder } from "./HashingEmbedder.ts";
import { EmbedderThreads } from "./threads/EmbedderThreads.ts";
import { TransformersEmbedder } from "./TransformersEmbedder.ts";

export interface CreateEmbedderOptions {
  /** intra-op threads of the session in the calling thread (when `workers` is 0 or unset) */
  threads?: number;
  /** worker threads to run an ONNX model in, one single-threaded session each; 0 or unset: in the calling thread */
  workers?: number;
  maxTokens?: number;
  longText?: "truncate" | "windows";
  /** false: the model's int8 weights are multiplied in float, as exported (default: in integers) */
  int8?: boolean;
}

/**
 * The embedder named by the `embeddingModel` setting: "hashing" (the built-in,
 * needs no files) or the name of a folder under `<modelsDir>/embeddings/`.
 */
export async function createEmbedder(setting: string, modelsDir: string, opts: CreateEmbedderOptions = {}): Promise<Embedder> {
  const name = setting.trim();
  if (name === "" || name === "hashing") return new HashingEmbedder();
  // A setting is a folder name, not a path: it must not climb out of models/embeddings.
  if (name === "." || name === ".." || /[\\/]/.test(name)) {
    throw new Error(`embeddingModel must be "hashing" or a folder name in ${join(resolve(modelsDir), "embeddings")}, got "${setting}"`);
  }
  const dir = join(resolve(modelsDir), "embeddings", name);
  if (!existsSync(dir)) {
    throw new Error(`Embedding model "${name}" not found: no folder ${dir} (set embeddingModel to "hashing" or install the model there)`);
  }
  const { workers = 0, int8, ...rest } = opts;
  const options = { ...rest, ...(int8 === false ? { int8: false as const } : {}) };
  if (workers > 0) return EmbedderThreads.load(dir, { ...options, threads: 1, count: workers });
  return TransformersEmbedder.load(dir, options);
}

/** How the server's settings run an ONNX model: `embeddingThreads` worker threads (0: one per thread of `threads`). */
export function embedderOptions(config: Pick<Config, "threads" | "embeddingThreads" | "embeddingMaxTokens" | "embeddingLongText" | "embeddingInt8">): CreateEmbedderOptions {
  return { threads: config.threads, workers: config.embeddingThreads || config.threads, maxTokens: config.embeddingMaxTokens, longText: config.embeddingLongText, int8: config.embeddingInt8 !== "off" };
}
