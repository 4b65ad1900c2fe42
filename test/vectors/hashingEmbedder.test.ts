import { describe, expect, test } from "bun:test";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: Float32Array) => Math.sqrt(cos(a, a));

describe("HashingEmbedder", () => {
  const e = new HashingEmbedder();

  test("id and dims are the documented ones", () => {
    expect(e.id).toBe("hashing-384-v1");
    expect(e.dims).toBe(384);
  });

  test("deterministic across calls and instances", async () => {
    const texts = ["The dragon sleeps under the mountain.", "Garrick pours ale", "ünïcode 😀 text", ""];
    const a = await e.embed(texts);
    const b = await new HashingEmbedder().embed(texts);
    expect(a.length).toBe(4);
    for (let i = 0; i < texts.length; i++) expect(Array.from(a[i])).toEqual(Array.from(b[i]));
  });

  test("every vector has norm 1, empty text included", async () => {
    for (const v of await e.embed(["a", "The innkeeper", "", "   ", "!!!", "x".repeat(10_000)])) {
      expect(v.length).toBe(384);
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(v.every(Number.isFinite)).toBe(true);
    }
  });

  test("case-insensitive", async () => {
    const [a, b] = await e.embed(["The Dragon Sleeps", "the dragon sleeps"]);
    expect(cos(a, b)).toBeCloseTo(1, 6);
  });

  test("similar texts are closer than unrelated ones", async () => {
    const [q, near, inflected, far] = await e.embed([
      "the smugglers use a tunnel under the old mill",
      "a smugglers tunnel runs beneath the old mill",
      "smuggler tunnels",
      "Garrick the innkeeper brews a famous honey ale",
    ]);
    expect(cos(q, near)).toBeGreaterThan(cos(q, far) + 0.2);
    expect(cos(q, inflected)).toBeGreaterThan(cos(q, far));
  });

  test("word order matters a little (bigrams), vocabulary matters most", async () => {
    const [a, b, c] = await e.embed(["red dragon attacks the blue castle", "blue dragon attacks the red castle", "the merchant sells bread"]);
    expect(cos(a, b)).toBeLessThan(0.999);
    expect(cos(a, b)).toBeGreaterThan(cos(a, c));
  });

  // Its speed is measured in bench/retrieval.ts ("Hashing embedder alone: … chunks/s"), never asserted here.
  test("a batch of a thousand ~400-token chunks gives a thousand unit vectors of the documented size", async () => {
    const chunk = "The old road to Thornhaven winds past the ruined watchtower, where caravans once stopped to water their horses. ".repeat(20);
    const texts = Array.from({ length: 1000 }, (_, i) => `${i} ${chunk}`);
    const vectors = await e.embed(texts);
    expect(vectors.length).toBe(1000);
    for (const v of [vectors[0], vectors[999]]) {
      expect(v.length).toBe(384);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(Array.from(vectors[0])).not.toEqual(Array.from(vectors[1]));
  });
});
