import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pruneNanGuards } from "../../src/vectors/onnx/pruneNanGuards.ts";
import { TransformersEmbedder } from "../../src/vectors/TransformersEmbedder.ts";
import { realFixtures } from "./realFixtures.ts";

// all-MiniLM-L6-v2 (the real int8 fixture): the embedder's faster ways of running the model give the vectors
// transformers.js's own feature-extraction pipeline gives (mean pooling, normalised): the way it was embedded before.
const fx = realFixtures();
const dir = fx ? join(fx.modelsDir, "embeddings", fx.minilm) : "";
const cos = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const TEXTS = [
  "The river rises in spring.",
  "Garrick brews a strong black beer at the tavern; the watch closes the gates at the tenth bell, and the toll chain is lowered at night for smugglers who pay the harbour master twice what the honest pay.",
  "Nan brews willow bark tea for fevers.",
  "Two watchmen patrol the wharves from dusk to dawn. ".repeat(12).trim(),
];

describe.skipIf(!fx)("all-MiniLM-L6-v2: the pruned graph, run by onnxruntime-node directly (real weights)", () => {
  // biome-ignore lint: transformers.js pipelines are loosely typed
  let reference: any;
  let embedder: TransformersEmbedder;
  beforeAll(async () => {
    const { pipeline } = await import("@huggingface/transformers");
    reference = await pipeline("feature-extraction", dir, { local_files_only: true, device: "cpu", dtype: "int8", session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 } });
    // every text here is under 256 pieces, so reading them whole (the pipeline's way) and the embedder's cut agree
    embedder = await TransformersEmbedder.load(dir, { threads: 1 });
  });
  afterAll(async () => {
    await reference?.dispose();
    await embedder?.dispose();
  });

  test("the fixture's graph has the six softmax NaN guards the pruning removes", () => {
    expect(pruneNanGuards(readFileSync(join(dir, "onnx", "model_int8.onnx"))).pruned).toBe(6);
  });

  // Bound: the same weights and the same arithmetic minus a Where that never fires (no fully masked row), on one
  // thread: the vectors are the same floats; 1e-5 leaves room for nothing but summation order.
  test("each text's vector is the pipeline's (cosine ≥ 0.99999)", async () => {
    const mine = await embedder.embed(TEXTS);
    for (const [i, text] of TEXTS.entries()) {
      const ref = await reference([text], { pooling: "mean", normalize: true });
      expect(cos(mine[i], ref.data as Float32Array)).toBeGreaterThanOrEqual(0.99999);
    }
  });
});
