import { expect, test } from "bun:test";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { chunk } from "./helpers.ts";

// The column-by-column scan of sparse queries (src/vectors/columnScan.ts) against the row scan, on seeded sparse
// vectors (plain JS arithmetic: the same on any CPU). It must return exactly the row scan's hits, scores and
// order, also after documents are replaced, deleted and added since its columns were built.
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

test("a sparse query scanned by columns finds exactly what the row scan finds, before and after writes", () => {
  const columns = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1 });
  const rows = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY });
  for (let d = 0; d < 200; d++) write([columns, rows], `d${d}`, d);
  same(columns, rows, 1); // builds the columns
  // fewer than a tenth of the rows change: the columns are kept, the changes scanned beside them
  for (let d = 0; d < 6; d++) write([columns, rows], `d${d * 13}`, 5000 + d); // replaced: new vectors, new tags
  for (let d = 0; d < 4; d++) for (const c of [columns, rows]) c.deleteDocument(`d${d * 17 + 1}`);
  for (let d = 0; d < 5; d++) write([columns, rows], `new${d}`, 9000 + d);
  write([columns, rows], "new2", 9100); // replaced again after being added
  same(columns, rows, 2);
  // past a tenth: built again
  for (let d = 0; d < 40; d++) write([columns, rows], `d${d * 5 + 2}`, 7000 + d);
  same(columns, rows, 3);
});

test("a replaced document is found by its new vector and never by its old one", () => {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1 });
  for (let d = 0; d < 100; d++) write([cache], `d${d}`, d);
  const target = new Float32Array(DIMS);
  target[3] = 1;
  const meta = [chunk("p", "d50", 0, "", ["a"])];
  cache.setDocument("d50", meta, [target]);
  expect(cache.search(target, new Set(["a"]), 1)[0].documentId).toBe("d50"); // columns built with d50 on dim 3
  const away = new Float32Array(DIMS);
  away[7] = 1;
  cache.setDocument("d50", meta, [away]);
  const hits = cache.search(target, new Set(["a"]), 200);
  expect(hits.find((h) => h.documentId === "d50")?.score ?? 0).toBeCloseTo(0, 5);
  expect(cache.search(away, new Set(["a"]), 1)[0].documentId).toBe("d50");
  cache.deleteDocument("d50");
  expect(cache.search(away, new Set(["a"]), 200).some((h) => h.documentId === "d50")).toBe(false);
});
