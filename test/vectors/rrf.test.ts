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
  // one each, both first: the first list's goes first, whatever the keys
  const tie = reciprocalRankFusion([["b"], ["a"]], (v) => v);
  expect(tie.map((f) => f.item)).toEqual(["b", "a"]);
});

test("ties follow the lists, not the keys: the same lists under keys drawn anew fuse in the same order", () => {
  // Two chunks ranked 1st and 2nd by one search and 2nd and 1st by the other tie on score and best rank; a chunk's
  // id is new at each import, so the order must not fall to it (a turn's notes came in either order per load).
  const lists = [
    ["tankard", "rumours", "history"],
    ["rumours", "tankard", "market"],
  ];
  for (const ids of [
    { tankard: "0a", rumours: "ff", history: "10", market: "20" },
    { tankard: "ff", rumours: "0a", history: "20", market: "10" },
  ] as Record<string, string>[]) {
    const fused = reciprocalRankFusion(lists, (name) => ids[name]);
    expect(fused[0].score).toBeCloseTo(fused[1].score, 12);
    expect(fused.map((f) => f.item)).toEqual(["tankard", "rumours", "history", "market"]);
  }
});
