import { expect, test } from "bun:test";
import { RRF_K, reciprocalRankFusion } from "../../src/retrieval/rrf.ts";

test("reciprocal rank fusion sums 1/(60+rank) and keeps per-list ranks", () => {
  const fused = reciprocalRankFusion([["a", "b", "c"], ["c", "a", "d"]], (x) => x);
  const by = Object.fromEntries(fused.map((f) => [f.item, f]));
  expect(RRF_K).toBe(60);
  expect(by.a.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
  expect(by.c.score).toBeCloseTo(1 / 63 + 1 / 61, 12);
  expect(by.d.ranks).toEqual([null, 3]);
  expect(fused.map((f) => f.item)).toEqual(["a", "c", "b", "d"]);
});

test("ties break deterministically and duplicates in one list count once", () => {
  const fused = reciprocalRankFusion([["x", "x", "y"], ["y"]], (v) => v);
  expect(fused.map((f) => f.item)).toEqual(["y", "x"]);
  expect(fused[1].score).toBeCloseTo(1 / 61, 12);
  const tie = reciprocalRankFusion([["b"], ["a"]], (v) => v);
  expect(tie.map((f) => f.item)).toEqual(["a", "b"]);
});
