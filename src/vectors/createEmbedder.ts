import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Embedder } from "./Embedder.ts";
import { HashingEmbedder } from "./HashingEmbedder.ts";
import { TransformersEmbedder } from "./TransformersEmbedder.ts";

/**
 * The embedder named by the `embeddingModel` setting: "hashing" (the built-in,
 * needs no files) or the name of a folder under `<modelsDir>/embeddings/`.
 */
export async function createEmbedder(setting: string, modelsDir: string, opts: { threads?: number; maxTokens?: number; longText?: "truncate" | "windows" } = {}): Promise<Embedder> {
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
  return TransformersEmbedder.load(dir, opts);
}
