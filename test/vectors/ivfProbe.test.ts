import { expect, test } from "bun:test";
import { prepareQuery } from "../../src/vectors/cacheBlocks.ts";
import { quantiseTable, tableDot } from "../../src/vectors/ivfMath.ts";
import { probeOrder, type IvfCentroids } from "../../src/vectors/ivfProbe.ts";

// The order in which a search probes the lists, ranked through the coarse level: seeded plain JS arithmetic, the
// same on any CPU.
const DIMS = 32;
function rng(seed: number) {
  let x = seed;
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296) * 2 - 1;
}
const unit = (v: Float32Array) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};

/** 400 unit list centroids under 20 coarse ones, each list in the group of its nearest coarse centroid. */
function centroids(): IvfCentroids {
  const r = rng(5);
  const k1 = 20;
  const k = 400;
  const coarse = new Float32Array(k1 * DIMS);
  for (let g = 0; g < k1; g++) coarse.set(unit(Float32Array.from({ length: DIMS }, () => r())), g * DIMS);
  const fine = new Float32Array(k * DIMS);
  const groups: number[][] = Array.from({ length: k1 }, () => []);
  for (let c = 0; c < k; c++) {
    const g = c % k1;
    fine.set(unit(Float32Array.from({ length: DIMS }, (_, d) => coarse[g * DIMS + d] + 0.4 * r())), c * DIMS);
    groups[g].push(c);
  }
  return { dims: DIMS, k, centroids: quantiseTable(fine, DIMS), coarse: quantiseTable(coarse, DIMS), members: groups.map((m) => Int32Array.from(m)) };
}
const dot = (ix: IvfCentroids, c: number, q: Float32Array) => tableDot(ix.centroids, c, q, DIMS);

test("every list comes exactly once, whatever the margin: a narrow filter can still reach every row", () => {
  const ix = centroids();
  const r = rng(9);
  for (const margin of [0, 1, 5, 1000]) {
    for (let i = 0; i < 5; i++) {
      const p = prepareQuery(Float32Array.from({ length: DIMS }, () => r()), DIMS, 0, new Set());
      const order = [...probeOrder(ix, p, 10, margin)];
      expect(order.length).toBe(ix.k);
      expect(new Set(order).size).toBe(ix.k);
    }
  }
});

test("margin 0 ranks every list by its own score; with a margin the lists first offered are the groups' best, in score order", () => {
  const ix = centroids();
  const r = rng(17);
  let agree = 0;
  for (let i = 0; i < 20; i++) {
    const q = Float32Array.from({ length: DIMS }, () => r());
    const p = prepareQuery(q, DIMS, 0, new Set());
    const all = [...probeOrder(ix, p, 20, 0)];
    const s = all.map((c) => dot(ix, c, p.q));
    for (let j = 1; j < s.length; j++) expect(s[j]).toBeLessThanOrEqual(s[j - 1] + 1e-6);
    const coarseFirst = [...probeOrder(ix, p, 20, 5)];
    // the lists the coarse level ranks come in order of their own score: the first 20 are sorted too
    const head = coarseFirst.slice(0, 20).map((c) => dot(ix, c, p.q));
    for (let j = 1; j < head.length; j++) expect(head[j]).toBeLessThanOrEqual(head[j - 1] + 1e-6);
    const truth = new Set(all.slice(0, 20));
    agree += coarseFirst.slice(0, 20).filter((c) => truth.has(c)).length;
  }
  // 5 × 20 lists of 400 ranked from the query's 5 nearest groups of 20 (random queries, far from any group): their
  // best 20 held 0.77 of the 20 truly best lists here; 5 groups picked without the coarse scores would hold 20 × 100 /
  // 400 = 5 of them (0.25). The bound sits between the two, with room on both sides.
  expect(agree / (20 * 20)).toBeGreaterThanOrEqual(0.6);
});
