import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { commitSnapshot, readSnapshot, restoreInto, snapshotRows, writeSnapshotTmp } from "../../src/vectors/cacheSnapshot.ts";
import { chunk, tempDir } from "./helpers.ts";

// The float32 rows of a project's snapshot file, which re-score a search's candidates, are read from the file when
// needed, not mapped: a mapping is an ArrayBuffer the runtime counts whole as heap, and its collector then lets
// garbage grow with it (src/vectors/fullVectors.ts). Seeded vectors, plain JS arithmetic: the same on any CPU.
const tmp = tempDir("lorehold-snaprows-");
afterAll(tmp.cleanup);
const DIMS = 96;
function rng(seed: number) {
  let x = seed;
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296) * 2 - 1;
}
const meta = { gen: 1, embedderId: "test", dims: DIMS, projectId: "p" };

function fill(cache: ProjectVectorCache, docs: number, seed: number) {
  const r = rng(seed);
  for (let d = 0; d < docs; d++) {
    const rows = Array.from({ length: 20 }, (_, i) => chunk("p", `d${d}`, i, "", [["a", "b"][(d + i) % 2]]));
    cache.setDocument(`d${d}`, rows, rows.map(() => Float32Array.from({ length: DIMS }, () => r())));
  }
}
async function save(cache: ProjectVectorCache, path: string) {
  const blocks = cache.blocks();
  commitSnapshot(await writeSnapshotTmp(path, meta, blocks), path);
  cache.adoptSnapshotRows(snapshotRows(path, blocks));
}
const queries = (seed: number) => {
  const r = rng(seed);
  return Array.from({ length: 30 }, () => Float32Array.from({ length: DIMS }, () => r()));
};

test("a restored cache re-scores from the file's rows, exactly as from its own, without holding the file as heap", async () => {
  const path = join(tmp.dir, "p.vc");
  const own = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  fill(own, 1000, 1); // 20,000 rows: 7.7 MB of float32 vectors
  await save(own, path);
  Bun.gc(true);
  const before = process.memoryUsage().arrayBuffers;
  const file = readSnapshot(path)!;
  const restored = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  restoreInto(restored, file);
  Bun.gc(true);
  const grew = process.memoryUsage().arrayBuffers - before;
  // the codes and scales are read into memory (20,000 × (96 + 4) B = 2 MB); the float32 part (7.7 MB) is not
  // held: a mapping of the file counted all of it (9.7 MB and more)
  expect(grew).toBeLessThan(4_000_000);
  const tags = new Set(["a"]);
  for (const q of queries(2)) {
    const want = own.search(q, tags, 5);
    const got = restored.search(q, tags, 5);
    expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
    got.forEach((h, i) => expect(h.score).toBe(want[i].score)); // the same float32 values, read back
  }
  expect(restored.blocks().length).toBe(1000);
});

test("rows read from a snapshot stay right after a newer snapshot replaces the file", async () => {
  const path = join(tmp.dir, "q.vc");
  const a = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  const b = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  fill(a, 50, 3);
  fill(b, 50, 3);
  await save(a, path); // a's blocks now read the first file
  // b writes other vectors for half the documents and saves over the same path: a still reads its own file
  fill(b, 25, 9);
  await save(b, path);
  const fresh = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  fill(fresh, 50, 3);
  for (const q of queries(4)) {
    const want = fresh.search(q, new Set(["a", "b"]), 6);
    expect(a.search(q, new Set(["a", "b"]), 6).map((h) => [h.id, h.score])).toEqual(want.map((h) => [h.id, h.score]));
  }
  // and a snapshot of a, written from rows it reads from the replaced file, holds them
  const again = join(tmp.dir, "r.vc");
  await save(a, again);
  const back = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  restoreInto(back, readSnapshot(again)!);
  for (const q of queries(5)) expect(back.search(q, new Set(["b"]), 6).map((h) => [h.id, h.score])).toEqual(fresh.search(q, new Set(["b"]), 6).map((h) => [h.id, h.score]));
});
