import { expect, test } from "bun:test";
import { NumberTable } from "../../../src/scanner/worker/NumberTable.ts";
import { sketchSimilarity, wordSketch } from "../../../src/scanner/worker/wordSketch.ts";

test("NumberTable agrees with a Map on 48-bit keys through many resizes", () => {
  const table = new NumberTable(4);
  const map = new Map<number, number>();
  let x = 12345;
  for (let i = 0; i < 50_000; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const key = (x * 131_071 + i) % 2 ** 48;
    table.set(key, i);
    map.set(key, i);
  }
  table.set(0, 7);
  map.set(0, 7);
  table.set(2 ** 48 - 1, 9);
  map.set(2 ** 48 - 1, 9);
  expect(table.size).toBe(map.size);
  for (const [k, v] of map) expect(table.get(k)).toBe(v);
  expect(table.get(2 ** 40 + 3)).toBe(map.get(2 ** 40 + 3));
  expect(table.has(123)).toBe(map.has(123));
});

test("word sketches estimate Jaccard similarity", () => {
  const words = Array.from({ length: 100 }, (_, i) => `w${i}`);
  const a = new Set(words);
  const near = new Set([...words.slice(0, 96), "x1", "x2", "x3", "x4"]); // Jaccard 96/104 ≈ 0.92
  const far = new Set(Array.from({ length: 100 }, (_, i) => `v${i}`));
  expect(sketchSimilarity(wordSketch(a), wordSketch(a))).toBe(1);
  expect(sketchSimilarity(wordSketch(a), wordSketch(near))).toBeGreaterThan(0.7);
  expect(sketchSimilarity(wordSketch(a), wordSketch(far))).toBeLessThan(0.2);
});
