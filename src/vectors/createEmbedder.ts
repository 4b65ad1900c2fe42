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
  const { workers = 0, ...rest } = opts;
  if (workers > 0) return EmbedderThreads.load(dir, { ...rest, threads: 1, count: workers });
  return TransformersEmbedder.load(dir, rest);
}

/** How the server's settings run an ONNX model: `embeddingThreads` worker threads (0: one per thread of `threads`). */
export function embedderOptions(config: Pick<Config, "threads" | "embeddingThreads" | "embeddingMaxTokens" | "embeddingLongText">): CreateEmbedderOptions {
  return { threads: config.threads, workers: config.embeddingThreads || config.threads, maxTokens: config.embeddingMaxTokens, longText: config.embeddingLongText };
}
