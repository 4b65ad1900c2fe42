import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Config } from "../config/config.ts";
import { resolveModelPath } from "../llm/resolveModel.ts";

export interface InstalledModel {
  /** GGUF: the file name (a split model: its first part). Embedding: the folder name, as `embeddingModel` takes it. */
  name: string;
  path: string;
  kind: "gguf" | "embedding";
  sizeBytes: number;
  /** The chat model the server would load / the embedder it would use, with this configuration. */
  active: boolean;
}

export interface ModelInventory {
  modelsDir: string;
  models: InstalledModel[];
  /** What the server would use: the chat model's path (null: none) and the embedder ("hashing" is built in). */
  active: { chat: string | null; embedding: string };
  /** Downloads in progress or interrupted (`model pull` resumes them). */
  incomplete: Array<{ name: string; sizeBytes: number }>;
}

const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf$/i;

/**
 * The models in modelsDir: GGUF files (a split model's parts count as one) and
 * embedding model folders under `embeddings/<name>/` (an `onnx/*.onnx` and a
 * tokenizer.json), marking the ones the configuration makes active.
 */
export function listModels(config: Pick<Config, "modelsDir" | "model" | "embeddingModel">): ModelInventory {
  const dir = resolve(config.modelsDir);
  const chat = resolveModelPath(dir, config.model ?? undefined);
  const models: InstalledModel[] = [];
  const incomplete: ModelInventory["incomplete"] = [];

  const parts = new Map<string, InstalledModel>();
  for (const name of safeReaddir(dir).sort()) {
    const path = join(dir, name);
    if (name.endsWith(".partial") && isFile(path)) incomplete.push({ name: name.slice(0, -".partial".length), sizeBytes: size(path) });
    if (!/\.gguf$/i.test(name) || !isFile(path)) continue;
    const split = SPLIT_PART.exec(name);
    const id = split ? name.slice(0, split.index) : name;
    const known = split ? parts.get(id) : undefined;
    if (known) {
      known.sizeBytes += size(path);
      continue;
    }
    const model: InstalledModel = { name, path, kind: "gguf", sizeBytes: size(path), active: path === chat };
    if (split) parts.set(id, model);
    models.push(model);
  }
  // A model configured by path outside modelsDir is still the active one.
  if (chat && !models.some((m) => m.path === chat)) {
    models.push({ name: chat.split("/").at(-1)!, path: chat, kind: "gguf", sizeBytes: size(chat), active: true });
  }

  const embeddingsDir = join(dir, "embeddings");
  for (const name of safeReaddir(embeddingsDir).sort()) {
    const path = join(embeddingsDir, name);
    if (!isEmbeddingFolder(path)) continue;
    models.push({ name, path, kind: "embedding", sizeBytes: folderSize(path), active: config.embeddingModel.trim() === name });
  }
  return { modelsDir: dir, models, active: { chat, embedding: config.embeddingModel.trim() || "hashing" }, incomplete };
}

function isEmbeddingFolder(path: string): boolean {
  try {
    if (!statSync(path).isDirectory() || !existsSync(join(path, "tokenizer.json"))) return false;
    return readdirSync(join(path, "onnx")).some((n) => n.endsWith(".onnx"));
  } catch {
    return false;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function size(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function folderSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? folderSize(path) : entry.isFile() ? size(path) : 0;
  }
  return total;
}
