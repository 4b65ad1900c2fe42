import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createEmbedder } from "../../src/vectors/createEmbedder.ts";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { TransformersEmbedder } from "../../src/vectors/TransformersEmbedder.ts";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { writeTinyOnnxModel } from "../support/tinyOnnx.ts";
import { chunk, tempDir } from "./helpers.ts";

const tmp = tempDir("lorehold-onnx-");
const modelsDir = join(tmp.dir, "models");
const modelDir = join(modelsDir, "embeddings", "tiny-bert");
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

let embedder: TransformersEmbedder;
beforeAll(async () => {
  writeTinyOnnxModel(modelDir, { dims: 32 });
  embedder = await TransformersEmbedder.load(modelDir);
});
afterAll(async () => {
  await embedder?.dispose();
  tmp.cleanup();
});

describe("TransformersEmbedder on a hand-written ONNX model", () => {
  test("id names the folder; dims come from the model", () => {
    expect(embedder.id).toBe("onnx:tiny-bert");
    expect(embedder.dims).toBe(32);
  });

  test("deterministic, normalised vectors of the right size, in input order", async () => {
    const texts = ["The dragon sleeps under the mountain.", "gold caravan road", "", "unknownword xyz"];
    const a = await embedder.embed(texts);
    const b = await embedder.embed([...texts].reverse());
    expect(a).toHaveLength(4);
    for (let i = 0; i < texts.length; i++) {
      expect(a[i]).toBeInstanceOf(Float32Array);
      expect(a[i].length).toBe(32);
      expect(Math.sqrt(cos(a[i], a[i]))).toBeCloseTo(1, 5);
      expect(Array.from(a[i])).toEqual(Array.from(b[texts.length - 1 - i]));
    }
    expect(cos(a[0], a[1])).toBeLessThan(0.999);
    // The tokenizer lower-cases (BertNormalizer), so case does not change the vector.
    const [x, y] = await embedder.embed(["THE DRAGON", "the dragon"]);
    expect(Array.from(x)).toEqual(Array.from(y));
  });

  test("a second load of the same folder gives the same vectors", async () => {
    const again = await TransformersEmbedder.load(modelDir);
    const [a] = await embedder.embed(["tavern ale"]);
    const [b] = await again.embed(["tavern ale"]);
    expect(Array.from(a)).toEqual(Array.from(b));
    await again.dispose();
    await expect(again.embed(["x"])).rejects.toThrow(/disposed/);
  });

  test("many texts are batched", async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `king ${i} queen`);
    const vs = await embedder.embed(texts);
    expect(vs).toHaveLength(70);
    const [single] = await embedder.embed([texts[42]]);
    for (let i = 0; i < 32; i++) expect(vs[42][i]).toBeCloseTo(single[i], 5);
  });

  test("texts of mixed lengths, batched by length, come back in input order with the vectors each has alone", async () => {
    // lengths interleaved so that sorting by length moves every text: a mix-up of the order would pair a text
    // with another's vector
    const texts = Array.from({ length: 23 }, (_, i) => (i % 2 ? "dragon gold mountain road ".repeat(1 + (i % 5)) : `king ${i}`).trim());
    const small = await TransformersEmbedder.load(modelDir, { batch: 4 });
    try {
      const vs = await small.embed(texts);
      expect(vs).toHaveLength(texts.length);
      for (let i = 0; i < texts.length; i++) {
        const [alone] = await small.embed([texts[i]]);
        for (let d = 0; d < 32; d++) expect(vs[i][d]).toBeCloseTo(alone[d], 5);
      }
    } finally {
      await small.dispose();
    }
  });

  describe("how much of a long text is read", () => {
    // The tiny model's words are one word piece each, so a text of N words is [CLS] + N pieces + [SEP].
    const A = "dragon mountain inn innkeeper ale tavern king queen sword river forest castle thief guard".split(" "); // 14
    const B = "gold silver caravan road tunnel smuggler town history dragons she it they was is".split(" "); // 14
    const same = (x: Float32Array, y: Float32Array) => x.every((v, i) => Math.abs(v - y[i]) < 1e-6);

    test("a text longer than the limit embeds the same as its prefix that fits, and unlike the whole", async () => {
      const cut = await TransformersEmbedder.load(modelDir, { maxTokens: 16 });
      try {
        // 16 pieces: [CLS], 14 words, [SEP]. The whole text reads past the cut only without it.
        const [long, prefix, shortOne] = await cut.embed([[...A, ...B].join(" "), A.join(" "), A.slice(0, 5).join(" ")]);
        const [prefixAlone] = await embedder.embed([A.join(" ")]);
        const [whole] = await embedder.embed([[...A, ...B].join(" ")]);
        expect(same(long, prefix)).toBe(true);
        expect(same(prefix, prefixAlone)).toBe(true);
        expect(same(long, whole)).toBe(false);
        // a text within the limit is read as it is
        const [shortAlone] = await embedder.embed([A.slice(0, 5).join(" ")]);
        expect(same(shortOne, shortAlone)).toBe(true);
      } finally {
        await cut.dispose();
      }
    });

    test("windows read every piece: the tiny model has no positions, so the windows' order does not matter", async () => {
      const win = await TransformersEmbedder.load(modelDir, { maxTokens: 16, longText: "windows" });
      const cut = await TransformersEmbedder.load(modelDir, { maxTokens: 16 });
      try {
        const [ab, ba] = await win.embed([[...A, ...B].join(" "), [...B, ...A].join(" ")]);
        const [cutAb, cutBa] = await cut.embed([[...A, ...B].join(" "), [...B, ...A].join(" ")]);
        expect(same(ab, ba)).toBe(true);
        expect(same(cutAb, cutBa)).toBe(false);
        expect(same(ab, cutAb)).toBe(false);
      } finally {
        await Promise.all([win.dispose(), cut.dispose()]);
      }
    });

    test("a cut below the model's limit is part of the id (changing it re-embeds); the model's own limit is not", async () => {
      const cut = await TransformersEmbedder.load(modelDir, { maxTokens: 16 });
      const full = await TransformersEmbedder.load(modelDir, { maxTokens: 512 });
      expect([cut.id, cut.maxTokens]).toEqual(["onnx:tiny-bert@16", 16]);
      expect([full.id, full.maxTokens]).toEqual(["onnx:tiny-bert", 512]);
      expect(embedder.maxTokens).toBe(512);
      await Promise.all([cut.dispose(), full.dispose()]);
      const e = await createEmbedder("tiny-bert", modelsDir, { maxTokens: 256 });
      expect(e.id).toBe("onnx:tiny-bert@256");
      await e.dispose?.();
      const w = await createEmbedder("tiny-bert", modelsDir, { maxTokens: 128, longText: "windows" });
      expect(w.id).toBe("onnx:tiny-bert@w128");
      await w.dispose?.();
    });
  });

  test("a vector store runs on it", async () => {
    const store = await VectorStore.open(join(tmp.dir, "store"), embedder);
    await store.replaceDocumentChunks("p", "d", [chunk("p", "d", 0, "the dragon sleeps", ["t"]), chunk("p", "d", 1, "gold on the road", ["t"])]);
    const hits = await store.searchVectors({ projectId: "p", query: "dragon", tags: ["t"], n: 2 });
    expect(hits[0].id).toBe("p:d:0");
    expect(store.embedderId).toBe("onnx:tiny-bert");
    await store.close();
  });

  test("missing or incomplete folders fail cleanly", async () => {
    await expect(TransformersEmbedder.load(join(tmp.dir, "nope"))).rejects.toThrow(/not found/);
    const empty = join(tmp.dir, "empty-model");
    mkdirSync(empty, { recursive: true });
    await expect(TransformersEmbedder.load(empty)).rejects.toThrow(/config\.json/);
  });
});

describe("createEmbedder", () => {
  test('"hashing" (and empty) give the built-in embedder', async () => {
    expect(await createEmbedder("hashing", modelsDir)).toBeInstanceOf(HashingEmbedder);
    expect(await createEmbedder("", modelsDir)).toBeInstanceOf(HashingEmbedder);
  });

  test("a folder name under modelsDir/embeddings loads that model", async () => {
    const e = await createEmbedder("tiny-bert", modelsDir);
    expect(e.id).toBe("onnx:tiny-bert");
    expect(e.dims).toBe(32);
    await e.dispose?.();
  });

  test("a missing folder is a clear error naming where it looked", async () => {
    await expect(createEmbedder("all-MiniLM-L6-v2", modelsDir)).rejects.toThrow(
      `Embedding model "all-MiniLM-L6-v2" not found: no folder ${join(modelsDir, "embeddings", "all-MiniLM-L6-v2")}`,
    );
  });

  test("paths are not folder names", async () => {
    await expect(createEmbedder("../tiny-bert", modelsDir)).rejects.toThrow(/folder name/);
    await expect(createEmbedder("/etc", modelsDir)).rejects.toThrow(/folder name/);
    await expect(createEmbedder("..", modelsDir)).rejects.toThrow(/folder name/);
  });
});
