// Real models' shapes, for random-weight GGUFs (speed only): the README's recommended CPU models and
// a ~100M llama.
export const MODEL_SHAPES = {
  /** Qwen2.5-0.5B-Instruct */
  "qwen0.5b": { nEmbd: 896, nLayers: 24, nHeads: 14, nHeadsKv: 2, nFf: 4864, vocabSize: 151936, label: "Qwen2.5-0.5B" },
  /** Llama-3.2-1B-Instruct */
  "llama3.2-1b": { nEmbd: 2048, nLayers: 16, nHeads: 32, nHeadsKv: 8, nFf: 8192, vocabSize: 128256, label: "Llama-3.2-1B" },
  llama100m: { nEmbd: 768, nLayers: 12, nHeads: 12, nHeadsKv: 12, nFf: 2048, vocabSize: 16000, label: "a ~100M llama" },
} as const;

export type ModelShapeName = keyof typeof MODEL_SHAPES;

export function modelShape(name: string): (typeof MODEL_SHAPES)[ModelShapeName] {
  const shape = MODEL_SHAPES[name as ModelShapeName];
  if (!shape) throw new Error(`--shape must be one of ${Object.keys(MODEL_SHAPES).join(", ")}`);
  return shape;
}
