import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf$/i;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds the GGUF model to load. `model` is a path to a GGUF file or a file name in `modelsDir`
 * (".gguf" may be left off). With no `model`, a `modelsDir` holding exactly one GGUF model
 * (a split model's parts count as one) gives that one. Otherwise null.
 */
export function resolveModelPath(modelsDir: string, model?: string): string | null {
  if (model != null && model.trim() !== "") {
    const candidates = [model, join(modelsDir, model)];
    if (!/\.gguf$/i.test(model)) candidates.push(join(modelsDir, `${model}.gguf`));
    for (const candidate of candidates) if (isFile(candidate)) return resolve(candidate);
    return null;
  }
  if (!existsSync(modelsDir)) return null;
  let names: string[];
  try {
    names = readdirSync(modelsDir).filter((n) => /\.gguf$/i.test(n) && isFile(join(modelsDir, n)));
  } catch {
    return null;
  }
  // A split model (name-00001-of-00003.gguf …) is one model: llama.cpp loads it from its first part.
  const models = new Map<string, string>();
  for (const name of names.sort()) {
    const split = SPLIT_PART.exec(name);
    const id = split ? name.slice(0, split.index) + "#split" : name;
    if (!models.has(id)) models.set(id, name);
  }
  if (models.size !== 1) return null;
  const [only] = models.values();
  return resolve(join(modelsDir, only));
}
