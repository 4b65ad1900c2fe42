import { expect, test } from "bun:test";
import { defaultLists, IvfIndex } from "../../src/vectors/IvfIndex.ts";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { chunk } from "./helpers.ts";

// The approximate index of the project vector cache, on seeded clustered vectors: plain JS arithmetic, the same
// on any CPU. Clusters stand in for what a neural embedder gives real text (topics); dense like its vectors.
const DIMS = 64;
function rng(seed: number) {
  let x = seed;
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296) * 2 - 1;
}
const r = rng(3);
const CENTRES = Array.from({ length: 24 }, () => Float32Array.from({ length: DIMS }, () => r()));
const near = (c: number, noise = 0.35, rr = r) => Float32Array.from(CENTRES[c], (x) => x + noise * rr());
const TAGS = ["a", "b", "c", "d", "e"];

/** 40 documents of 50 rows; tag "rare" on 7 rows scattered over 7 documents (and clusters). */
function fill(cache: ProjectVectorCache, from = 0, docs = 40) {
  for (let d = from; d < from + docs; d++) {
    const rows = Array.from({ length: 50 }, (_, i) => chunk("p", `d${d}`, i, "", [TAGS[(d + i) % TAGS.length], ...(i === 7 && d % 5 === 0 && d < 35 ? ["rare"] : [])]));
    const own = rng(1000 + d); // the same vectors in every cache filled
    cache.setDocument(`d${d}`, rows, rows.map((_, i) => near((d * 7 + i) % CENTRES.length, 0.35, own)));
  }
}

test("past the threshold the index builds in the background; the exact scan answers until it is ready", async () => {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 1000 });
  fill(cache, 0, 10);
  expect(cache.mode).toBe("exact"); // 500 rows
  fill(cache, 10, 30);
  expect(cache.mode).toBe("building");
  const during = cache.search(near(3), new Set(["a"]), 10);
  expect(during).toHaveLength(10);
  await cache.indexIdle();
  expect(cache.mode).toBe("indexed");
});

test("the index ranks like the exact scan (recall@4 ≥ 0.9 on clustered vectors) and filters exactly: no leak, never fewer hits", async () => {
  const exact = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  const ix = new ProjectVectorCache(DIMS, "p", { indexMinRows: 1000 });
  fill(exact);
  fill(ix);
  await ix.indexIdle();
  expect(ix.mode).toBe("indexed");
  let found = 0;
  let wanted = 0;
  for (let q = 0; q < 60; q++) {
    const tags = new Set(TAGS.filter((_, i) => (q + i) % 3 === 0));
    const query = near(q % CENTRES.length, 0.5);
    const want = exact.search(query, tags, 4);
    const got = ix.search(query, tags, 20);
    expect(got).toHaveLength(20); // every tag subset here opens hundreds of rows
    for (const h of got) expect(h.tags.some((t) => tags.has(t))).toBe(true);
    for (let i = 1; i < got.length; i++) expect(got[i - 1].score).toBeGreaterThanOrEqual(got[i].score);
    const ids = new Set(got.slice(0, 4).map((h) => h.id));
    found += want.filter((h) => ids.has(h.id)).length;
    wanted += want.length;
  }
  // 24 clusters of ~80 rows, 716 lists, 10 % of them probed: a query's own cluster is almost always among them
  expect(found / wanted).toBeGreaterThanOrEqual(0.9);
  // a narrow visible set, spread over many lists: all of it comes back, not only what the first lists hold
  for (let q = 0; q < 10; q++) {
    const rare = ix.search(near(q), new Set(["rare"]), 20);
    expect(rare.map((h) => h.id).sort()).toEqual(exact.search(near(q), new Set(["rare"]), 20).map((h) => h.id).sort());
    expect(rare).toHaveLength(7);
  }
  // an excluded document (a turn's conditions) is skipped inside the index too
  const held = ix.search(near(0), new Set(TAGS), 50, (doc) => doc === "d0");
  expect(held.some((h) => h.documentId === "d0")).toBe(false);
});

test("writes made while the index builds are in it; replaced and deleted documents never come back", async () => {
  const ix = new ProjectVectorCache(DIMS, "p", { indexMinRows: 1000 });
  fill(ix);
  expect(ix.mode).toBe("building");
  // during the build: a new document, a replaced one, a deleted one
  const late = Array.from({ length: 5 }, (_, i) => chunk("p", "late", i, "", ["late"]));
  ix.setDocument("late", late, late.map(() => near(5, 0.1)));
  const again = Array.from({ length: 3 }, (_, i) => chunk("p", "d1", i, "", ["a"], { id: `d1-new-${i}` }));
  ix.setDocument("d1", again, again.map(() => near(9, 0.1)));
  ix.deleteDocument("d2");
  await ix.indexIdle();
  expect(ix.mode).toBe("indexed");
  expect(ix.search(near(5), new Set(["late"]), 10).map((h) => h.documentId)).toEqual(["late", "late", "late", "late", "late"]);
  const all = ix.search(near(9), new Set(TAGS), 2000);
  expect(all.filter((h) => h.documentId === "d1").map((h) => h.id).sort()).toEqual(["d1-new-0", "d1-new-1", "d1-new-2"]);
  expect(all.some((h) => h.documentId === "d2")).toBe(false);
  expect(all).toHaveLength(39 * 50 - 50 + 3); // every visible row, each once (d1 replaced by 3 rows, d2 gone)
  expect(new Set(all.map((h) => h.id)).size).toBe(all.length);
  // after the build, writes go straight into the lists
  ix.deleteDocument("late");
  expect(ix.search(near(5), new Set(["late"]), 10)).toEqual([]);
});

test("a sparse query (the hashing embedder's) scans exactly even when the index is ready", async () => {
  const exact = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  const ix = new ProjectVectorCache(DIMS, "p", { indexMinRows: 1000 });
  fill(exact);
  fill(ix);
  await ix.indexIdle();
  for (let q = 0; q < 10; q++) {
    const sparse = new Float32Array(DIMS);
    for (let j = 0; j < 5; j++) sparse[(q * 13 + j * 7) % DIMS] = 1 + j;
    expect(ix.search(sparse, new Set(["a", "c"]), 8).map((h) => h.id)).toEqual(exact.search(sparse, new Set(["a", "c"]), 8).map((h) => h.id));
  }
});

test("the two-level build lists every row exactly once under its lists, and rows written later join them", async () => {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  fill(cache);
  const rows = 40 * 50;
  const index = await IvfIndex.build(cache.blocks(), DIMS, rows, async () => {});
  expect(index.k).toBe(defaultLists(rows)); // 716: every coarse group got its share, the shares add up to k
  expect(index.listSizes()).toHaveLength(index.k);
  expect(index.listSizes().reduce((a, b) => a + b, 0)).toBe(rows);
  // the lists follow the clusters: no list holds a big share of the rows (24 clusters of ~80 rows)
  expect(Math.max(...index.listSizes())).toBeLessThan(rows / 8);
  const extra = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  fill(extra, 40, 2);
  for (const b of extra.blocks()) index.add(b);
  expect(index.listSizes().reduce((a, b) => a + b, 0)).toBe(rows + 100);
});

test("probing bounded by rows (a big project's lists) still fills n visible hits, and ranks close to the exact scan", async () => {
  const exact = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  // ~100 rows' worth of lists: 18 of 358, where the default share would probe 36
  const narrow = new ProjectVectorCache(DIMS, "p", { indexMinRows: 1000, probeRows: 100 });
  fill(exact);
  fill(narrow);
  await narrow.indexIdle();
  let found = 0;
  for (let q = 0; q < 24; q++) {
    const tags = new Set([TAGS[q % TAGS.length]]);
    const query = near(q, 0.5);
    const got = narrow.search(query, tags, 20);
    expect(got).toHaveLength(20);
    for (const h of got) expect(h.tags.some((t) => tags.has(t))).toBe(true);
    const ids = new Set(got.slice(0, 4).map((h) => h.id));
    found += exact.search(query, tags, 4).filter((h) => ids.has(h.id)).length;
  }
  // a query's own cluster (~80 rows) is almost always in its closest three lists
  expect(found / (24 * 4)).toBeGreaterThanOrEqual(0.85);
  expect(narrow.search(near(1), new Set(["rare"]), 20)).toHaveLength(7);
});

test("a stream of searches that never lets the event loop turn still completes the index build", async () => {
  // As back-to-back in-process requests do (app.handle in a loop): their awaits resolve as microtasks, so no timer
  // or immediate runs between them, and a build that only resumed on a timer would never finish. Each search that
  // finds a build running lets it go on for a few ms after the answer.
  const ix = new ProjectVectorCache(DIMS, "p", { indexMinRows: 1000 });
  fill(ix);
  expect(ix.mode).toBe("building");
  let searches = 0;
  let timersRan = 0;
  setTimeout(() => timersRan++, 0);
  while (ix.mode !== "indexed" && searches < 2000) {
    expect(ix.search(near(searches % CENTRES.length), new Set(TAGS), 4)).toHaveLength(4);
    searches++;
    await Promise.resolve();
  }
  expect(timersRan).toBe(0); // the loop really never turned
  expect(ix.mode).toBe("indexed");
  // each search runs at least one step of the build (more when the box is fast enough for several in 2 ms); at
  // 2,000 rows it has ~220 (kmeans passes of 128 rows, listing 256 rows a step), whatever the CPU or its load
  expect(searches).toBeLessThanOrEqual(300);
  await ix.indexIdle();
});
