import { expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { prng } from "../support/prng.ts";
import { chunk } from "./helpers.ts";

// An index build trains on sample rows (8 a list, each its own 1.5 KB Float32Array at 384 dims): once the index is
// in place they must be garbage. They were kept reachable from the finished build (~120 B a row of the project at
// 100,000 rows) until later work let them go; counted here as live Float32Array objects after full collections.
test("a finished index build lets its sample rows go", async () => {
  const dims = 64;
  const rand = prng(11);
  const cache = new ProjectVectorCache(dims, "p", { indexMinRows: 4_000, rescore: 0 });
  for (let d = 0; d < 200; d++) {
    const rows = Array.from({ length: 20 }, (_, i) => chunk("p", `d${d}`, i, "", ["t"]));
    cache.setDocument(`d${d}`, rows, rows.map(() => Float32Array.from({ length: dims }, () => rand() * 2 - 1)));
  }
  const arrays = () => {
    Bun.gc(true);
    return heapStats().objectTypeCounts.Float32Array ?? 0;
  };
  const before = arrays();
  await cache.indexIdle();
  expect(cache.mode).toBe("indexed");
  // 4,000 rows: 63 lists, 1,512 sample rows, each a Float32Array; the index itself keeps a few (its centroids)
  await Bun.sleep(10);
  // measured: 1,516 more before the build let its sample go, ~200 after (the build's other arrays: the collector
  // finds some of them from stale pointers); a third of the sample rows tells the two apart with room either way
  expect(arrays() - before).toBeLessThan(1_512 / 3);
});
