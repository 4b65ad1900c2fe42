import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { blockCodes, rowChunkIndex, rowId, rowLocation, rowName, rowScale, rowTags, type DocumentBlock } from "../../src/vectors/cacheBlocks.ts";
import { commitSnapshot, readSnapshot, restoreInto, snapshotRows, writeSnapshotTmp } from "../../src/vectors/cacheSnapshot.ts";
import { ProjectVectorCache, type CacheOptions, type CachedRow } from "../../src/vectors/ProjectVectorCache.ts";
import type { RowColumns } from "../../src/vectors/rowColumns.ts";
import { answers as answersOf, holds as holdsFor, seededVectors } from "../support/seededVectors.ts";
import { tempDir } from "./helpers.ts";

// Rows of deleted and replaced documents leave the columns the cache's documents share (columnCompaction.ts): under
// churn the columns the live documents use hold at most 1.25× their rows once the background compactions are done,
// every answer while they run and after is what a cache given the live documents afresh answers, a snapshot written
// while one runs or after loads and answers the same, and the budget's count comes back to 0 once all is deleted.
// Plain JS arithmetic on seeded vectors: the same answers on any CPU.

const tmp = tempDir("lorehold-compaction-");
afterAll(() => tmp.cleanup());

const DIMS = 32;
const { rand, tags: TAGS, pick, vector, queries: makeQueries } = seededVectors(20261128, DIMS);
const queries = makeQueries(40, 0.2, 20);
const answers = (c: ProjectVectorCache) => answersOf(c, queries);

type Doc = { documentId: string; rows: CachedRow[]; vectors: Float32Array[] };

function doc(d: number, version: number, nz: number): Doc {
  const n = 1 + Math.floor(rand() * 6);
  const rows = Array.from({ length: n }, (_, i) => ({
    id: `chunk_${d}_${version}_${i}${"é".repeat(i % 2)}`,
    projectId: "p",
    documentId: `d${d}`,
    documentName: rand() < 0.7 ? `Doc ${d % 13}` : `Doc ${d} part ${i % 3}`,
    chunkIndex: i,
    tags: rand() < 0.1 ? [] : rand() < 0.5 ? [pick(TAGS), pick(TAGS)] : [pick(TAGS)],
    locationId: rand() < 0.3 ? null : `loc${d % 7}`,
  }));
  return { documentId: `d${d}`, rows, vectors: rows.map(() => vector(nz)) };
}

/** The distinct columns the live documents read, and the rows they hold. */
function columns(cache: ProjectVectorCache): { sets: Set<RowColumns>; rows: number } {
  const sets = new Set(cache.blocks().map((b) => b.cols));
  let rows = 0;
  for (const c of sets) rows += c.rows;
  return { sets, rows };
}

/** Every set's dead count is what its live documents leave of it. */
function countsAgree(cache: ProjectVectorCache): void {
  const liveOn = new Map<RowColumns, number>();
  for (const b of cache.blocks()) liveOn.set(b.cols, (liveOn.get(b.cols) ?? 0) + b.n);
  for (const [c, n] of liveOn) expect(c.rows - c.deadRows).toBe(n);
}

async function save(cache: ProjectVectorCache, name: string): Promise<string> {
  const path = join(tmp.dir, `${name}.vc`);
  const blocks = cache.blocks();
  commitSnapshot(await writeSnapshotTmp(path, { gen: 1, embedderId: "e", dims: DIMS, projectId: "p" }, blocks, { index: null, columns: false }), path);
  cache.adoptSnapshotRows(snapshotRows(path, blocks));
  return path;
}

/** A cache given these documents one at a time, in this order: what the churned cache must answer. */
function fresh(docs: Doc[], opts: CacheOptions): ProjectVectorCache {
  const c = new ProjectVectorCache(DIMS, "p", opts);
  for (const d of docs) c.setDocument(d.documentId, d.rows, d.vectors);
  return c;
}

const EXACT: CacheOptions = { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY, compactSliceRows: 16 };

for (const [kind, opts, nz] of [
  ["rows scanned exactly", EXACT, 6],
  ["a sparse project's column copy", { indexMinRows: 0, columnMinRows: 1, columnSliceRows: 64, compactSliceRows: 16 }, 6],
  ["a dense project's approximate index", { indexMinRows: 200, compactSliceRows: 16 }, DIMS],
] as const) {
  test(`churn over ${kind}: the columns stay within 1.25× the live rows and the answers are a fresh cache's, during compactions and after`, async () => {
    const written = new Map<string, Doc>();
    const live = new Map<string, CachedRow>();
    const give = (x: Doc) => {
      for (const [id, r] of live) if (r.documentId === x.documentId) live.delete(id);
      for (const r of x.rows) live.set(r.id, r);
      written.set(x.documentId, x);
    };
    const drop = (id: string) => {
      for (const [rid, r] of live) if (r.documentId === id) live.delete(rid);
      written.delete(id);
    };
    // 400 documents restored from one file: one set of columns
    const source = new ProjectVectorCache(DIMS, "p", EXACT);
    for (let d = 0; d < 400; d++) {
      const x = doc(d, 0, nz);
      give(x);
      source.setDocument(x.documentId, x.rows, x.vectors);
    }
    const cache = new ProjectVectorCache(DIMS, "p", opts);
    restoreInto(cache, readSnapshot(await save(source, `start-${nz}-${kind.length}`))!);
    expect(columns(cache).sets.size).toBe(1);
    let next = 400;
    let mid: { path: string; docs: Doc[] } | null = null;
    for (let round = 0; round < 30; round++) {
      const ids = cache.blocks().map((b) => b.documentId);
      // deleted, replaced (another row count, often), and new documents in one batch
      for (let i = 0; i < 12; i++) {
        const id = pick(ids);
        if (!written.has(id)) continue;
        drop(id);
        cache.deleteDocument(id);
      }
      const batch: Doc[] = [];
      for (let i = 0; i < 8; i++) {
        const id = pick(ids);
        if (written.has(id) && !batch.some((b) => b.documentId === id)) batch.push(doc(Number(id.slice(1)), round + 1, nz));
      }
      for (let i = 0; i < 16; i++) batch.push(doc(next++, 0, nz));
      for (const x of batch) give(x);
      cache.setDocuments(batch);
      // every answer right with compactions under way (each a slice at a time, between these searches)
      holdsFor(cache, live, queries);
      if (round === 10) {
        const docs = cache.blocks().map((b) => written.get(b.documentId)!);
        mid = { docs, path: await save(cache, `mid-${nz}-${kind.length}`) };
      }
      if (round % 3 === 0) await cache.indexIdle();
      else await Bun.sleep(1);
    }
    await cache.indexIdle();
    let liveRows = 0;
    for (const b of cache.blocks()) liveRows += b.n;
    expect(liveRows).toBe(live.size);
    // the bound: every set the live documents read is less than a fifth dead (before, the first file's columns kept
    // every row they were restored with, and each batch's its own, whatever died since)
    expect(columns(cache).rows).toBeLessThanOrEqual(Math.ceil(1.25 * live.size));
    expect(cache.compaction.done).toBeGreaterThan(0);
    countsAgree(cache);
    holdsFor(cache, live, queries);
    const docs = cache.blocks().map((b) => written.get(b.documentId)!);
    if (kind !== "a dense project's approximate index") {
      expect(answers(cache)).toEqual(answers(fresh(docs, opts)));
    } else {
      expect(cache.mode).toBe("indexed");
      // through the index: the same answers before the columns moved as after (a compaction changes no row's values)
      const biggest = [...columns(cache).sets].sort((a, b) => b.rows - a.rows)[0];
      const on = cache.blocks().filter((b) => b.cols === biggest);
      for (const b of on.slice(0, Math.ceil(on.length / 3))) {
        drop(b.documentId);
        cache.deleteDocument(b.documentId);
      }
      const done = cache.compaction.done;
      const before = answers(cache); // synchronous: no step of the compaction ran yet
      await cache.indexIdle();
      expect(cache.compaction.done).toBeGreaterThan(done);
      expect(answers(cache)).toEqual(before);
      holdsFor(cache, live, queries);
    }
    // a snapshot written while compactions ran, and one written now, load and answer as a fresh cache
    const want = fresh(cache.blocks().map((b) => written.get(b.documentId)!), EXACT);
    const back = new ProjectVectorCache(DIMS, "p", EXACT);
    restoreInto(back, readSnapshot(await save(cache, `end-${nz}-${kind.length}`))!);
    expect(answers(back)).toEqual(answers(want));
    const atMid = new ProjectVectorCache(DIMS, "p", EXACT);
    restoreInto(atMid, readSnapshot(mid!.path)!);
    expect(answers(atMid)).toEqual(answers(fresh(mid!.docs, EXACT)));
    // every document gone: nothing left in the budget's count (each compaction's change of a block's share counted)
    for (const b of cache.blocks()) cache.deleteDocument(b.documentId);
    await cache.indexIdle();
    expect(cache.size).toBe(0);
    if (kind === "rows scanned exactly") expect(cache.bytes).toBe(0);
  });
}

test("a document that dies takes its rows out of the columns it shared; a compaction moves the rest, their codes and float32 rows with them, a slice at a time", async () => {
  const cache = new ProjectVectorCache(DIMS, "p", { ...EXACT, compactSliceRows: 4 });
  const docs = Array.from({ length: 50 }, (_, d) => doc(d, 0, 6));
  cache.setDocuments(docs); // one batch: one set of columns, one array of codes, one of float32 rows
  const blocks = cache.blocks();
  const shared = { cols: blocks[0].cols, codes: blocks[0].codeArr!, full: blocks[0].full! };
  expect(blocks.every((b) => b.cols === shared.cols && b.codeArr === shared.codes && b.full === shared.full)).toBe(true);
  const gone = blocks[3];
  const idsBefore = Array.from({ length: gone.n }, (_, r) => rowId(gone, r));
  cache.deleteDocument(gone.documentId);
  // columns of its own now, its rows as they were (an index or a save may still read them)
  expect(gone.cols).not.toBe(shared.cols);
  expect(gone.cols.rows).toBe(gone.n);
  expect(Array.from({ length: gone.n }, (_, r) => rowId(gone, r))).toEqual(idsBefore);
  // past a fifth of the rows dead: compacted in the background
  for (const d of docs.slice(4, 20)) cache.deleteDocument(d.documentId);
  expect(shared.cols.deadRows / shared.cols.rows).toBeGreaterThanOrEqual(0.2);
  const left = docs.filter((_, d) => d < 3 || d >= 20);
  const want = answers(fresh(left, EXACT));
  // what each live block reads now, before any step ran (a step needs a timer's turn or a search)
  const read = (b: DocumentBlock) => ({
    rows: Array.from({ length: b.n }, (_, r) => [rowId(b, r), rowName(b, r), rowLocation(b, r), rowChunkIndex(b, r), rowTags(b, r), rowScale(b, r), b.tagBits[r], [...b.full!.row(b.fullAt + r)]]),
    codes: [...blockCodes(b, DIMS)],
  });
  const before = new Map(cache.blocks().map((b) => [b, read(b)]));
  expect([...before.keys()].every((b) => b.cols === shared.cols)).toBe(true);
  // between the slices (each timer turn runs one), every live block reads the same rows, codes and float32 rows,
  // moved yet or not; no search here, which would lend the compaction a few ms and run it through
  let turns = 0;
  while (cache.blocks().some((b) => b.cols === shared.cols)) {
    for (const [b, was] of before) expect(read(b)).toEqual(was);
    await Bun.sleep(0);
    if (++turns > 10_000) throw new Error("the compaction never ended");
  }
  for (const [b, was] of before) expect(read(b)).toEqual(was);
  await cache.indexIdle();
  const moved = cache.blocks();
  const cols = moved[0].cols;
  expect(moved.every((b) => b.cols === cols && b.codeArr !== shared.codes && b.full !== shared.full)).toBe(true);
  expect(cols.rows).toBe(left.reduce((s, d) => s + d.rows.length, 0));
  expect(cols.deadRows).toBe(0);
  // their codes and float32 rows in arrays a slice of the compaction made each, holding the live rows alone
  const codeArrays = new Set(moved.map((b) => b.codeArr!));
  const fullArrays = new Set(moved.map((b) => b.full!));
  expect([...codeArrays].reduce((s, a) => s + a.length, 0)).toBe(cols.rows * DIMS);
  expect([...fullArrays].reduce((s, f) => s + f.heapBytes, 0)).toBe(cols.rows * DIMS * 4);
  expect(answers(cache)).toEqual(want);
});
