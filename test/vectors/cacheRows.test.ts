import { afterAll, expect, test } from "bun:test";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { commitSnapshot, readSnapshot, restoreInto, snapshotRows, writeSnapshotTmp } from "../../src/vectors/cacheSnapshot.ts";
import { ProjectVectorCache, type CachedRow } from "../../src/vectors/ProjectVectorCache.ts";
import { answers as answersOf, holds as holdsFor, seededVectors } from "../support/seededVectors.ts";
import { tempDir } from "./helpers.ts";
import { oldWorld } from "./oldSnapshotWorld.ts";

// What the project vector cache keeps of a row (cacheBlocks.ts): a document's names, locations, tag sets and chunk
// numbers once a block when its rows share them, ids end to end in one string, and for a sparse project the codes
// in the column copy alone. Every hit must still carry exactly its row's fields, tag filtering must stay exact (no
// hit outside the visible tags, never fewer hits than the visible rows allow), and a snapshot file written before
// this layout (or by a cache whose codes live in its copy) must load and answer the same. Plain JS arithmetic on
// seeded vectors: the same answers on any CPU.

const tmp = tempDir("lorehold-cache-rows-");
afterAll(() => tmp.cleanup());

const DIMS = 32;
const { rand, tags: TAGS, pick, vector, queries: makeQueries } = seededVectors(20261126, DIMS);

/** A document whose rows share or do not share each field, at random. */
function doc(d: number, version = 0, nz = 6): { id: string; rows: CachedRow[]; vectors: Float32Array[] } {
  const n = 1 + Math.floor(rand() * 12);
  const same = { name: rand() < 0.7, loc: rand() < 0.7, tags: rand() < 0.6, order: rand() < 0.7 };
  const docTags = [pick(TAGS), pick(TAGS)];
  const chunkIndex = Array.from({ length: n }, (_, i) => (same.order ? i : (i * 5 + 3) % (n + 7)));
  const rows = chunkIndex.map((ci, i) => ({
    id: `chunk_${d}_${version}_${i}${"x".repeat(i % 3)}`,
    projectId: "p",
    documentId: `d${d}`,
    documentName: same.name ? `Doc ${d}` : `Doc ${d} part ${i % 2}`,
    chunkIndex: ci,
    tags: same.tags ? docTags : rand() < 0.1 ? [] : [pick(TAGS)],
    locationId: same.loc ? (d % 2 ? null : `loc${d}`) : i % 2 ? null : `loc${d}_${i}`,
  }));
  return { id: `d${d}`, rows, vectors: rows.map(() => vector(nz)) };
}

const queries = makeQueries(60, 0.15, 30);
const answers = (c: ProjectVectorCache) => answersOf(c, queries);
/** Checks every property on one cache against the rows it was given. */
const holds = (c: ProjectVectorCache, live: Map<string, CachedRow>) => holdsFor(c, live, queries);

test("hits carry exactly their rows' fields and tag filtering stays exact, by rows, by columns and by the index, across writes", async () => {
  const byRows = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY });
  const byColumns = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1, columnSliceRows: 64 });
  const indexed = new ProjectVectorCache(DIMS, "p", { indexMinRows: 100, columnMinRows: 1, columnSliceRows: 64 });
  const caches = [byRows, byColumns, indexed];
  const live = new Map<string, CachedRow>();
  const written = new Map<string, { rows: CachedRow[]; vectors: Float32Array[] }>();
  const put = (d: number, version = 0) => {
    const x = doc(d, version);
    written.set(x.id, x);
    for (const [id, r] of live) if (r.documentId === x.id) live.delete(id);
    for (const r of x.rows) live.set(r.id, r);
    for (const c of caches) c.setDocument(x.id, x.rows, x.vectors);
  };
  for (let d = 0; d < 80; d++) put(d);
  holds(byRows, live);
  holds(byColumns, live); // asks for the copy: the rows answer meanwhile
  await Promise.all(caches.map((c) => c.indexIdle()));
  expect(byColumns.columnState).toBe("ready");
  expect(indexed.mode).toBe("indexed");
  // the copy holds the codes alone now
  expect(byColumns.blocks().every((b) => b.codes === null && b.home !== null)).toBe(true);
  for (const c of caches) holds(c, live);
  // the copy's 4-bit scores only pick candidates, which float32 ranks: the same answers as the rows' int8
  expect(answers(byColumns)).toEqual(answers(byRows));
  // writes after the copy: replaced, deleted, added (scanned beside the copy with their own codes)
  for (let d = 0; d < 5; d++) put(d * 7, 1);
  for (let d = 0; d < 3; d++) {
    for (const [id, r] of live) if (r.documentId === `d${d * 11 + 2}`) live.delete(id);
    for (const c of caches) c.deleteDocument(`d${d * 11 + 2}`);
  }
  for (let d = 100; d < 104; d++) put(d);
  for (const c of caches) holds(c, live);
  expect(answers(byColumns)).toEqual(answers(byRows));
  // enough writes that the copy is stale: the next copy takes the old copy's rows from it, not from codes
  for (let d = 0; d < 30; d++) put(d * 2 + 1, 2);
  holds(byColumns, live);
  await Promise.all(caches.map((c) => c.indexIdle()));
  for (const c of caches) holds(c, live);
  expect(answers(byColumns)).toEqual(answers(byRows));
  // a copy that was building across those writes lists them as added: the next search starts one that takes all
  holds(byColumns, live);
  await byColumns.indexIdle();
  expect(byColumns.blocks().every((b) => b.codes === null)).toBe(true);
  holds(byColumns, live);
  // most rows of this copy came from the previous copy's nibbles, not from codes: it must hold exactly what a copy
  // made afresh from the same documents holds (the same candidates, so the same answers, ties and all)
  const fresh = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1 });
  for (const b of byColumns.blocks()) fresh.setDocument(b.documentId, written.get(b.documentId)!.rows, written.get(b.documentId)!.vectors);
  fresh.search(queries[1].v, queries[1].tags, 5);
  await fresh.indexIdle();
  expect(answers(byColumns)).toEqual(answers(fresh));
});

test("a cache whose codes live in its column copy writes a snapshot that loads and answers the same", async () => {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1 });
  const live = new Map<string, CachedRow>();
  for (let d = 0; d < 40; d++) {
    const x = doc(d);
    for (const r of x.rows) live.set(r.id, r);
    cache.setDocument(x.id, x.rows, x.vectors);
  }
  cache.search(queries[1].v, queries[1].tags, 5);
  await cache.indexIdle();
  expect(cache.blocks().every((b) => b.codes === null)).toBe(true);
  const path = join(tmp.dir, "homed.vc");
  const blocks = cache.blocks();
  commitSnapshot(await writeSnapshotTmp(path, { gen: 1, embedderId: "e", dims: DIMS, projectId: "p" }, blocks, { index: null, columns: true }), path);
  cache.adoptSnapshotRows(snapshotRows(path, blocks));
  const want = answers(cache);
  const back = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1 });
  restoreInto(back, readSnapshot(path)!);
  holds(back, live);
  expect(answers(back)).toEqual(want); // by rows, with int8 codes made back from the copy
  await back.indexIdle();
  expect(back.columnState).toBe("ready");
  expect(answers(back)).toEqual(want); // by its own copy again
});

test("a snapshot file written before blocks kept their rows once loads and answers as the cache that wrote it did", async () => {
  const fixture = join(import.meta.dir, "fixtures", "snapshot-before-blocks.vc");
  const expected = JSON.parse(readFileSync(join(import.meta.dir, "fixtures", "snapshot-before-blocks.hits.json"), "utf8"));
  const w = oldWorld();
  const path = join(tmp.dir, "old.vc");
  copyFileSync(fixture, path);
  const file = readSnapshot(path);
  expect(file).not.toBeNull();
  const cache = new ProjectVectorCache(w.dims, "p", { indexMinRows: 0, columnMinRows: 1 });
  restoreInto(cache, file!);
  const ask = () => w.queries.map((q) => cache.search(q.v, new Set(q.tags), q.n));
  expect(ask()).toEqual(expected);
  // the file said its columns were in use: the copy is built, and takes the codes
  await cache.indexIdle();
  expect(cache.columnState).toBe("ready");
  expect(cache.blocks().every((b) => b.codes === null)).toBe(true);
  expect(ask()).toEqual(expected);
  // every hit's fields are the rows the old cache was given
  const rows = new Map(w.docs.flatMap((d) => d.rows.map((r) => [r.id, r] as const)));
  for (const hits of ask()) for (const { score: _, ...h } of hits) expect(h).toEqual(rows.get(h.id)!);
});

test("dense rows in 4 bits (rowBits 4): exact filtering and fields, the float32 top hits, and a snapshot that keeps them 4-bit", async () => {
  const int8 = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  const four = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, rowBits: 4 });
  const indexed = new ProjectVectorCache(DIMS, "p", { indexMinRows: 100, rowBits: 4 });
  const live = new Map<string, CachedRow>();
  for (let d = 0; d < 60; d++) {
    const x = doc(d, 0, DIMS); // every dim non-zero, as a neural embedder's
    for (const r of x.rows) live.set(r.id, r);
    for (const c of [int8, four, indexed]) c.setDocument(x.id, x.rows, x.vectors);
  }
  await indexed.indexIdle();
  expect(indexed.mode).toBe("indexed");
  expect(four.blocks().every((b) => b.packed && b.codes!.length === (b.scales.length * DIMS) / 2)).toBe(true);
  expect(int8.blocks().some((b) => b.packed)).toBe(false);
  // half the codes' bytes
  expect(int8.bytes - four.bytes).toBe(four.blocks().reduce((s, b) => s + b.codes!.length, 0));
  for (const c of [int8, four, indexed]) holds(c, live);
  // the top 4 of each query, by float32, as the int8 rows find them: 4-bit candidates (4 × n) lose none of them on
  // these random vectors (seeded IEEE arithmetic: the same on any CPU); a near-copy would be a coin toss, see DocumentBlock.packed
  const top = (c: ProjectVectorCache) => queries.map((q) => c.search(q.v, q.tags, 4).map((h) => h.id));
  expect(top(four)).toEqual(top(int8));
  // a snapshot keeps them 4-bit: the same codes back (the file holds them as int8 made from the nibbles)
  const path = join(tmp.dir, "four.vc");
  commitSnapshot(await writeSnapshotTmp(path, { gen: 1, embedderId: "e", dims: DIMS, projectId: "p" }, four.blocks(), { index: null, columns: false }), path);
  const back = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, rowBits: 4 });
  restoreInto(back, readSnapshot(path)!);
  expect(back.blocks().map((b) => [...b.codes!])).toEqual(four.blocks().map((b) => [...b.codes!]));
  expect(answers(back)).toEqual(answers(four));
  // read by a cache that keeps int8: the nibbles' values as int8, the same candidates
  const asInt8 = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  restoreInto(asInt8, readSnapshot(path)!);
  expect(asInt8.blocks().some((b) => b.packed)).toBe(false);
  holds(asInt8, live);
  expect(answers(asInt8)).toEqual(answers(four));
});
