import { expect, test } from "bun:test";
import { blockCodes } from "../../src/vectors/cacheBlocks.ts";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { chunk } from "./helpers.ts";

// The column-by-column scan of sparse queries (src/vectors/columnScan.ts) against the row scan, on seeded sparse
// vectors (plain JS arithmetic: the same on any CPU). Its 4-bit scores pick 4 × n candidates that the cache then
// re-scores in float32, as the row scan's int8 ones do: on these vectors the two must return exactly the same hits,
// scores and order (a code stored or read back wrong, in either half of a column, sends rows out of the candidates),
// also after documents are replaced, deleted and added since its columns were built.
const DIMS = 96;
function rng(seed: number) {
  let x = seed;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
}
/** A sparse vector as the hashing embedder gives: a few non-zero dims. */
function sparse(rand: () => number, nz = 8): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < nz; i++) v[Math.floor(rand() * DIMS)] += rand() * 2 - 1;
  return v;
}
const TAGS = ["a", "b", "c", "d"];

function write(caches: ProjectVectorCache[], doc: string, seed: number, rows = 3) {
  const rand = rng(seed);
  const meta = Array.from({ length: rows }, (_, i) => chunk("p", doc, i, "", [TAGS[(seed + i) % TAGS.length]]));
  const vectors = meta.map(() => sparse(rand));
  for (const c of caches) c.setDocument(doc, meta, vectors);
}

function same(columns: ProjectVectorCache, rows: ProjectVectorCache, seed: number) {
  const rand = rng(seed);
  for (let q = 0; q < 40; q++) {
    const query = sparse(rand, 5);
    const tags = new Set(TAGS.filter((_, i) => (q + i) % 3 !== 0));
    const exclude = q % 4 === 0 ? (d: string) => d.endsWith("7") : undefined;
    expect(columns.search(query, tags, 12, exclude)).toEqual(rows.search(query, tags, 12, exclude));
  }
}

test("a sparse query scanned by columns finds exactly what the row scan finds, before and after writes", async () => {
  const columns = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1 });
  const rows = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY });
  for (let d = 0; d < 200; d++) write([columns, rows], `d${d}`, d);
  same(columns, rows, 1); // asks for the columns
  await columns.indexIdle();
  expect(columns.columnState).toBe("ready");
  same(columns, rows, 4); // through the columns
  // fewer than a tenth of the rows change: the columns are kept, the changes scanned beside them
  for (let d = 0; d < 6; d++) write([columns, rows], `d${d * 13}`, 5000 + d); // replaced: new vectors, new tags
  for (let d = 0; d < 4; d++) for (const c of [columns, rows]) c.deleteDocument(`d${d * 17 + 1}`);
  for (let d = 0; d < 5; d++) write([columns, rows], `new${d}`, 9000 + d);
  write([columns, rows], "new2", 9100); // replaced again after being added
  same(columns, rows, 2);
  // past a tenth: built again (the stale columns answer until then)
  for (let d = 0; d < 40; d++) write([columns, rows], `d${d * 5 + 2}`, 7000 + d);
  same(columns, rows, 3);
  await columns.indexIdle();
  same(columns, rows, 5);
});

test("the first sparse search does not copy the columns itself: they are built after it, in the background", async () => {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1 });
  for (let d = 0; d < 200; d++) write([cache], `d${d}`, d);
  const before = cache.bytes;
  cache.search(sparse(rng(3), 5), new Set(TAGS), 12);
  // the copy (rows × dims half-bytes and more) is not yet held: the search answered by the row scan
  expect(cache.bytes).toBe(before);
  await cache.indexIdle();
  // the copy now holds the rows' codes alone: the blocks' int8 codes (a byte a dimension) are gone, and the copy is
  // half a byte a dimension and a few arrays a row
  for (const b of cache.blocks()) expect(b.codes).toBeNull();
  const copy = cache.bytes - (before - 600 * DIMS);
  expect(copy).toBeGreaterThan((600 * DIMS) / 2);
  expect(copy).toBeLessThan(600 * (DIMS / 2 + 48));
  expect(cache.bytes).toBeLessThan(before);
});

test("searches during the column build, between writes and deletes, find exactly what the row scan finds", async () => {
  // 16 rows a slice: the build of 600 rows takes ~38 slices, each search during it copying one; the writes,
  // deletes and searches below land between them (awaits of resolved promises: no immediate runs meanwhile)
  const columns = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1, columnSliceRows: 16 });
  const rows = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY });
  for (let d = 0; d < 200; d++) write([columns, rows], `d${d}`, d);
  const rand = rng(77);
  const one = (step: number) => {
    const query = sparse(rand, 5);
    const tags = new Set(TAGS.filter((_, i) => (step + i) % 3 !== 0));
    expect(columns.search(query, tags, 12)).toEqual(rows.search(query, tags, 12));
  };
  one(0); // starts the build
  let during = 0;
  for (let step = 1; columns.columnState !== "ready"; step++) {
    expect(step).toBeLessThan(1000);
    during++;
    // documents of the build's moment replaced and deleted, new ones added (and one of those deleted again)
    if (step % 3 === 0) write([columns, rows], `d${(step * 7) % 200}`, 3000 + step);
    if (step % 5 === 1) for (const c of [columns, rows]) c.deleteDocument(`d${(step * 11) % 200}`);
    if (step % 4 === 2) write([columns, rows], `mid${step}`, 6000 + step);
    if (step === 7) for (const c of [columns, rows]) c.deleteDocument("mid2");
    one(step);
    await Promise.resolve();
  }
  expect(during).toBeGreaterThan(20);
  same(columns, rows, 2); // through the new columns, with the writes made during the build beside them
  write([columns, rows], "d1", 8000);
  for (const c of [columns, rows]) c.deleteDocument("mid10");
  same(columns, rows, 3);
});

test("a stream of searches that never lets the event loop turn still completes the column copy", async () => {
  // as back-to-back in-process requests do: no timer or immediate runs between them, so each search copies a slice
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1, columnSliceRows: 64 });
  for (let d = 0; d < 200; d++) write([cache], `d${d}`, d);
  const rand = rng(5);
  let searches = 0;
  while (cache.columnState !== "ready" && searches < 50) {
    cache.search(sparse(rand, 5), new Set(TAGS), 12);
    searches++;
    await Promise.resolve();
  }
  expect(cache.columnState).toBe("ready");
  expect(searches).toBeLessThanOrEqual(11); // 600 rows, 64 a slice (documents of 3 rows: 66 a slice): 10 slices
});

test("a replaced document is found by its new vector and never by its old one", async () => {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1 });
  for (let d = 0; d < 100; d++) write([cache], `d${d}`, d);
  const target = new Float32Array(DIMS);
  target[3] = 1;
  const meta = [chunk("p", "d50", 0, "", ["a"])];
  cache.setDocument("d50", meta, [target]);
  expect(cache.search(target, new Set(["a"]), 1)[0].documentId).toBe("d50");
  await cache.indexIdle(); // columns built with d50 on dim 3
  expect(cache.columnState).toBe("ready");
  const away = new Float32Array(DIMS);
  away[7] = 1;
  cache.setDocument("d50", meta, [away]);
  const hits = cache.search(target, new Set(["a"]), 200);
  expect(hits.find((h) => h.documentId === "d50")?.score ?? 0).toBeCloseTo(0, 5);
  expect(cache.search(away, new Set(["a"]), 1)[0].documentId).toBe("d50");
  cache.deleteDocument("d50");
  expect(cache.search(away, new Set(["a"]), 200).some((h) => h.documentId === "d50")).toBe(false);
});

test("without float32 re-scoring the row scan answers: the 4-bit columns alone would rank too coarsely", async () => {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1, rescore: 0 });
  for (let d = 0; d < 50; d++) write([cache], `d${d}`, d);
  cache.search(sparse(rng(3), 5), new Set(TAGS), 12);
  await cache.indexIdle();
  expect(cache.columnState).toBe("none");
});

test("a sparse query on a project whose dense rows the index holds: the column copy reads them from the index, and their blocks keep reading full int8 codes", async () => {
  // dense rows (a neural embedder's) live in the approximate index's lists once it is built; a sparse query then asks
  // for the column copy, which must copy those rows from the index (not from a column copy they never had)
  const D = DIMS;
  const rand = rng(31);
  const dense = () => Float32Array.from({ length: D }, () => rand() * 2 - 1);
  const cache = new ProjectVectorCache(D, "p", { indexMinRows: 600, columnMinRows: 1 });
  const plain = new ProjectVectorCache(D, "p", { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY });
  for (let d = 0; d < 40; d++) {
    const meta = Array.from({ length: 20 }, (_, i) => chunk("p", `d${d}`, i, "", [TAGS[(d + i) % TAGS.length]]));
    const vectors = meta.map(() => dense());
    for (const c of [cache, plain]) c.setDocument(`d${d}`, meta, vectors);
  }
  await cache.indexIdle();
  expect(cache.mode).toBe("indexed");
  const moved = cache.blocks().filter((b) => b.codes === null);
  expect(moved.length).toBeGreaterThan(0);
  const before = moved.map((b) => blockCodes(b, D).slice());
  const q = rng(32);
  const ask = () => {
    let found = 0;
    let wanted = 0;
    for (let n = 0; n < 30; n++) {
      const query = sparse(q, 5);
      const tags = new Set(TAGS.filter((_, i) => (n + i) % 3 !== 0));
      const got = cache.search(query, tags, 8);
      const want = plain.search(query, tags, 8);
      for (const h of got) expect(h.tags.some((t) => tags.has(t))).toBe(true);
      expect(got).toHaveLength(want.length);
      const ids = new Set(got.slice(0, 4).map((h) => h.id));
      found += want.slice(0, 4).filter((h) => ids.has(h.id)).length;
      wanted += Math.min(4, want.length);
    }
    return found / wanted;
  };
  ask(); // asks for the column copy
  await cache.indexIdle();
  expect(cache.columnState).toBe("ready");
  // 4-bit candidates re-scored in float32: near-exact on these vectors (the bound leaves room for 4-bit ties)
  expect(ask()).toBeGreaterThanOrEqual(0.9);
  // the rows the index holds are still read back as the very int8 codes they had
  moved.forEach((b, i) => expect(blockCodes(b, D)).toEqual(before[i]));
});
