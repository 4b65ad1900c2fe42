import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createEmbedder, embedderOptions } from "../../src/vectors/createEmbedder.ts";
import { int8MatMuls } from "../../src/vectors/onnx/int8MatMuls.ts";
import { openGraph } from "../../src/vectors/onnx/onnxGraph.ts";
import { pruneNanGuards } from "../../src/vectors/onnx/pruneNanGuards.ts";
import { TransformersEmbedder } from "../../src/vectors/TransformersEmbedder.ts";
import { realFixtures } from "./realFixtures.ts";

// all-MiniLM-L6-v2 (the real int8 fixture): the embedder's faster ways of running the model give the vectors
// transformers.js's own feature-extraction pipeline gives (mean pooling, normalised): the way it was embedded before;
// its int8 MatMuls give vectors close to those.
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

// Lore of the tuning worlds' kind (examples/thornhaven.yaml), and questions each answered by one line of it.
const LORE = [
  "The Rusty Tankard is the oldest inn of Thornhaven. Garrick keeps the bar; his porter Wend Water carries the kegs up from the cellar.",
  "The Great Flood came sixty-one years ago and took the lower mill; the high-water mark is cut into the chapel door.",
  "Captain Hesk's watch closes the town gates at the tenth bell; after that only the postern by the tannery opens, for a coin.",
  "Nan Wicker gives honey and thyme for a cough, and willow bark for fevers; she will not sell nightshade to anyone.",
  "The ferry crosses the Thorn twice a day in summer and once in winter; the ferryman sings the old songs on the way over.",
  "Tobias Crane owes the Rusty Tankard more than any man alive, and Garrick has stopped asking him to pay.",
];
const QUESTIONS: Record<string, string> = {
  "What is your house porter called?": "Wend Water",
  "How long ago was the Great Flood?": "sixty-one",
  "When do the town gates close?": "tenth bell",
  "What do you give for a cough?": "honey",
  "How often does the ferry cross?": "twice a day",
};

describe.skipIf(!fx)("all-MiniLM-L6-v2: the pruned graph, run by onnxruntime-node directly (real weights)", () => {
  // biome-ignore lint: transformers.js pipelines are loosely typed
  let reference: any;
  let embedder: TransformersEmbedder;
  let int8: TransformersEmbedder;
  beforeAll(async () => {
    const { pipeline } = await import("@huggingface/transformers");
    reference = await pipeline("feature-extraction", dir, { local_files_only: true, device: "cpu", dtype: "int8", session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 } });
    // every text here is under 256 pieces, so reading them whole (the pipeline's way) and the embedder's cut agree
    embedder = await TransformersEmbedder.load(dir, { threads: 1, int8: false });
    int8 = await TransformersEmbedder.load(dir, { threads: 1 });
  }, 60_000);
  afterAll(async () => {
    await reference?.dispose();
    await embedder?.dispose();
    await int8?.dispose();
  });

  test("the fixture's graph has the six softmax NaN guards the pruning removes", () => {
    expect(pruneNanGuards(readFileSync(join(dir, "onnx", "model_int8.onnx"))).pruned).toBe(6);
  });

  test("the fixture's 36 int8 projections become integer MatMuls; the attention's own 12 stay float", () => {
    const ops = (m: Uint8Array) => {
      const c: Record<string, number> = {};
      for (const n of openGraph(m)!.nodes) c[n.op] = (c[n.op] ?? 0) + 1;
      return c;
    };
    const pruned = pruneNanGuards(readFileSync(join(dir, "onnx", "model_int8.onnx"))).model;
    const { model, rewritten } = int8MatMuls(pruned);
    expect(rewritten).toBe(36);
    expect([ops(pruned).MatMul, ops(pruned).Cast, ops(pruned).DynamicQuantizeMatMul ?? 0]).toEqual([48, 39, 0]);
    // 3 Casts stay: the two embedding tables' (folded at load by ONNX Runtime) and the mask's
    expect([ops(model).MatMul, ops(model).Cast, ops(model).DynamicQuantizeMatMul]).toEqual([12, 3, 36]);
  });

  // Bound: 8-bit rounding of each projection's input (one scale per tensor) moves a vector; bench/minilm-int8.ts
  // measured cosine to the float graph's over 479 written texts (lore, questions, full-size chunks, docs pages):
  // min 0.985, mean 0.994 on this Xeon. The kernels chosen never saturate (VNNI/AMX/ARM dot products, or u8×u8
  // elsewhere), so another CPU differs from these by float summation order and rounding ties only: far inside 0.97
  // per text and 0.985 on the mean. The vectors are not the float graph's (a rewrite that did nothing would pass
  // the closeness alone): at least one text moves by more than 1e-4.
  test("int8 MatMuls: each text's vector is close to the float graph's and the pipeline's (cosine ≥ 0.97, mean ≥ 0.985)", async () => {
    const texts = [...TEXTS, ...LORE];
    const [float, mine] = [await embedder.embed(texts), await int8.embed(texts)];
    const c = texts.map((_, i) => cos(float[i], mine[i]));
    for (const x of c) expect(x).toBeGreaterThanOrEqual(0.97);
    expect(c.reduce((a, b) => a + b, 0) / c.length).toBeGreaterThanOrEqual(0.985);
    expect(Math.min(...c)).toBeLessThan(0.9999);
    for (const [i, text] of TEXTS.entries()) {
      const ref = await reference([text], { pooling: "mean", normalize: true });
      expect(cos(mine[i], ref.data as Float32Array)).toBeGreaterThanOrEqual(0.97);
    }
  });

  // The server's setting reaches the model: `embeddingInt8 = "off"` is the float graph, the default the int8 one.
  test("embeddingInt8 off gives the float graph's vectors, on (the default) the int8 graph's", async () => {
    const base = { threads: 1, embeddingThreads: 0, embeddingMaxTokens: 0, embeddingLongText: "truncate" as const };
    const off = await createEmbedder(fx!.minilm, fx!.modelsDir, { ...embedderOptions({ ...base, embeddingInt8: "off" }), workers: 0 });
    const on = await createEmbedder(fx!.minilm, fx!.modelsDir, { ...embedderOptions({ ...base, embeddingInt8: "on" }), workers: 0 });
    try {
      const [a, b, f, i] = [await off.embed(TEXTS), await on.embed(TEXTS), await embedder.embed(TEXTS), await int8.embed(TEXTS)];
      for (let k = 0; k < TEXTS.length; k++) {
        expect(cos(a[k], f[k])).toBeGreaterThanOrEqual(0.99999);
        expect(cos(b[k], i[k])).toBeGreaterThanOrEqual(0.99999);
      }
      expect(TEXTS.some((_, k) => cos(a[k], b[k]) < 0.9999)).toBe(true);
    } finally {
      await off.dispose?.();
      await on.dispose?.();
    }
  });

  // Vectors stored by the float graph and queried by the int8 one (a project indexed before the switch) must still
  // find their lore: each question's best chunk among the lore is the float graph's best chunk.
  test("int8 questions over float-embedded lore find the chunk float questions find", async () => {
    const lore = await embedder.embed(LORE);
    const qs = Object.keys(QUESTIONS);
    const [fq, iq] = [await embedder.embed(qs), await int8.embed(qs)];
    const best = (q: Float32Array) => lore.map((l, i) => [cos(q, l), i]).sort((a, b) => b[0] - a[0])[0][1];
    for (const [i, q] of qs.entries()) {
      expect(LORE[best(fq[i])]).toContain(QUESTIONS[q]);
      expect(best(iq[i])).toBe(best(fq[i]));
    }
  });

  // Bound: the same weights and the same arithmetic minus a Where that never fires (no fully masked row), with the
  // GELU's five nodes computed by ORT's one Gelu kernel (erf evaluated alike), on one thread: the vectors are the same
  // floats but for rounding; 1e-5 leaves room for nothing but summation order.
  test("the float graph (int8 off): each text's vector is the pipeline's (cosine ≥ 0.99999)", async () => {
    const mine = await embedder.embed(TEXTS);
    for (const [i, text] of TEXTS.entries()) {
      const ref = await reference([text], { pooling: "mean", normalize: true });
      expect(cos(mine[i], ref.data as Float32Array)).toBeGreaterThanOrEqual(0.99999);
    }
  });
});
