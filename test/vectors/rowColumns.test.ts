import { afterAll, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { join } from "node:path";
import { rowChunkIndex, rowId, rowLocation, rowName, rowTags } from "../../src/vectors/cacheBlocks.ts";
import { commitSnapshot, readSnapshot, restoreInto, snapshotRows, writeSnapshotTmp } from "../../src/vectors/cacheSnapshot.ts";
import { decodeRows, encodeRows } from "../../src/vectors/headerRows.ts";
import { ProjectVectorCache, type CachedRow } from "../../src/vectors/ProjectVectorCache.ts";
import { answers as answersOf, holds as holdsFor, seededVectors } from "../support/seededVectors.ts";
import { tempDir } from "./helpers.ts";

// The cache's rows in columns shared by the documents restored or written together (src/vectors/rowColumns.ts): a
// document is a run of rows in them. What must hold whatever the layout: every hit carries exactly its row's fields,
// the answers are those of a cache given the same documents one at a time, deletes and replacements never come back,
// the shared codes go once every live document's codes moved to the column copy, and a snapshot written from mixed
// columns loads and answers the same. Plain JS arithmetic on seeded vectors: the same answers on any CPU.

const tmp = tempDir("lorehold-row-columns-");
afterAll(() => tmp.cleanup());

const DIMS = 32;
const { rand, tags: TAGS, pick, vector, queries: makeQueries } = seededVectors(20261127, DIMS);

type Doc = { documentId: string; rows: CachedRow[]; vectors: Float32Array[] };

/** A document of 1–8 rows whose fields are shared or not at random (names and tags reused across documents). */
function doc(d: number, version = 0, nz = 6): Doc {
  const n = 1 + Math.floor(rand() * 8);
  const shared = rand() < 0.7;
  const rows = Array.from({ length: n }, (_, i) => ({
    id: `chunk_${d}_${version}_${i}${"é".repeat(i % 2)}`,
    projectId: "p",
    documentId: `d${d}`,
    documentName: shared ? `Doc ${d % 17}` : `Doc ${d} part ${i % 3}`,
    chunkIndex: shared ? i : (i * 5 + 3) % (n + 7),
    tags: rand() < 0.1 ? [] : rand() < 0.5 ? [pick(TAGS), pick(TAGS)] : [pick(TAGS)],
    locationId: rand() < 0.3 ? null : `loc${d % 5}`,
  }));
  return { documentId: `d${d}`, rows, vectors: rows.map(() => vector(nz)) };
}

const queries = makeQueries(50, 0.2, 25);
const answers = (c: ProjectVectorCache) => answersOf(c, queries);
const holds = (c: ProjectVectorCache, live: Map<string, CachedRow>) => holdsFor(c, live, queries);

async function save(cache: ProjectVectorCache, name: string): Promise<string> {
  const path = join(tmp.dir, `${name}.vc`);
  const blocks = cache.blocks();
  commitSnapshot(await writeSnapshotTmp(path, { gen: 1, embedderId: "e", dims: DIMS, projectId: "p" }, blocks, { index: null, columns: cache.extras().columns }), path);
  cache.adoptSnapshotRows(snapshotRows(path, blocks));
  return path;
}

test("documents restored together share one set of columns and answer as documents given one at a time, across replaces, deletes and adds", async () => {
  const opts = { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY };
  const reference = new ProjectVectorCache(DIMS, "p", opts);
  const live = new Map<string, CachedRow>();
  const give = (x: Doc) => {
    for (const [id, r] of live) if (r.documentId === x.documentId) live.delete(id);
    for (const r of x.rows) live.set(r.id, r);
    reference.setDocument(x.documentId, x.rows, x.vectors);
  };
  for (let d = 0; d < 120; d++) give(doc(d));
  const path = await save(reference, "shared");

  const restored = new ProjectVectorCache(DIMS, "p", opts);
  restoreInto(restored, readSnapshot(path)!);
  expect(new Set(restored.blocks().map((b) => b.cols)).size).toBe(1);
  expect(restored.size).toBe(reference.size);
  expect(restored.bytes).toBeLessThan(reference.bytes);
  holds(restored, live);
  expect(answers(restored)).toEqual(answers(reference));

  // replaced (some by documents of another row count), deleted, and new documents, written as one batch
  const batch: Doc[] = [];
  for (const d of [3, 40, 41, 119, 200, 201, 202]) batch.push(doc(d, 1));
  for (const x of batch) give(x);
  restored.setDocuments(batch);
  for (const d of [0, 7, 64, 118]) {
    for (const [id, r] of live) if (r.documentId === `d${d}`) live.delete(id);
    reference.deleteDocument(`d${d}`);
    restored.deleteDocument(`d${d}`);
  }
  // the batch shares columns of its own; the restored documents left keep theirs
  expect(new Set(restored.blocks().map((b) => b.cols)).size).toBe(2);
  holds(restored, live);
  expect(answers(restored)).toEqual(answers(reference));
  expect(restored.blocks().map((b) => b.documentId)).toEqual(reference.blocks().map((b) => b.documentId));

  // a snapshot of the mixed columns (rows restored, rows of the batch with their own float32 vectors) loads the same
  const again = await save(restored, "mixed");
  expect(answers(restored)).toEqual(answers(reference)); // re-scored from the file's rows now
  const back = new ProjectVectorCache(DIMS, "p", opts);
  restoreInto(back, readSnapshot(again)!);
  expect(new Set(back.blocks().map((b) => b.cols)).size).toBe(1);
  holds(back, live);
  expect(answers(back)).toEqual(answers(reference));

  // every document gone: nothing left in the budget's count
  for (const b of back.blocks()) back.deleteDocument(b.documentId);
  expect(back.bytes).toBe(0);
  expect(back.size).toBe(0);
});

test("the codes the restored documents share go once every live one moved its codes to the column copy; dead ones keep copies of their own", async () => {
  const source = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  const live = new Map<string, CachedRow>();
  for (let d = 0; d < 150; d++) {
    const x = doc(d);
    for (const r of x.rows) live.set(r.id, r);
    source.setDocument(x.documentId, x.rows, x.vectors);
  }
  const path = await save(source, "codes");
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1, columnSliceRows: 32 });
  restoreInto(cache, readSnapshot(path)!);
  const shared = cache.blocks()[0].codeArr!;
  expect(cache.blocks().every((b) => b.codeArr === shared)).toBe(true);
  // a document deleted before the copy is built: it copies its codes out, as a build or an index may still read them
  const gone = cache.blocks()[10];
  const at = gone.at; // its rows leave the shared columns as it dies: its own columns then start at 0
  cache.deleteDocument(gone.documentId);
  source.deleteDocument(gone.documentId);
  for (const [id, r] of live) if (r.documentId === gone.documentId) live.delete(id);
  expect(gone.codeArr).not.toBe(shared);
  expect(gone.codeArr!.length).toBe(gone.n * DIMS);
  expect([...gone.codeArr!]).toEqual([...shared.subarray(at * DIMS, (at + gone.n) * DIMS)]);
  holds(cache, live); // asks for the column copy
  await cache.indexIdle();
  expect(cache.columnState).toBe("ready");
  // no live block holds the shared array: it is garbage now
  expect(cache.blocks().every((b) => b.codeArr === null && b.home !== null)).toBe(true);
  holds(cache, live);
  expect(answers(cache)).toEqual(answers(source));
});

test("a restored cache of one-row documents holds no typed array, string or array per document beyond its id", async () => {
  const N = 5000;
  // the source cache made and saved in a scope of its own: gone before the counts
  const path = await (async () => {
    const source = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
    for (let d = 0; d < N; d++) {
      const x = doc(d);
      source.setDocument(x.documentId, x.rows.slice(0, 1), x.vectors.slice(0, 1));
    }
    return save(source, "heap");
  })();
  const counts = () => {
    for (let i = 0; i < 3; i++) Bun.gc(true);
    const c = heapStats().objectTypeCounts;
    const typed = ["Int8Array", "Uint8Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array"].reduce((s, k) => s + (c[k] ?? 0), 0);
    return { typed, strings: c.string ?? 0, arrays: c.Array ?? 0, objects: c.Object ?? 0 };
  };
  const file = readSnapshot(path)!;
  const before = counts();
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  restoreInto(cache, file);
  const after = counts();
  expect(cache.size).toBe(N);
  // the columns are a few dozen typed arrays for all the documents (the old layout held 3–5 a document)
  expect(after.typed - before.typed).toBeLessThan(100);
  // a document's id (the cache's key) and no more: names, tags and chunk ids live in strings of all of them
  expect(after.strings - before.strings).toBeLessThan(N * 1.2);
  expect(after.arrays - before.arrays).toBeLessThan(N * 0.2);
  expect(cache.search(queries[0].v, new Set(TAGS), 5).length).toBe(5);
});

test("a header lists its rows by column; one listing them by document (files written before) reads back to the same rows", async () => {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  for (let d = 0; d < 30; d++) {
    const x = doc(d);
    cache.setDocument(x.documentId, x.rows, x.vectors);
  }
  const blocks = cache.blocks();
  const { strings, cols, rows } = encodeRows(blocks);
  // the same rows as a file written before lists them: an object and five arrays a document
  let at = 0;
  const docs = cols.d.map((d, k) => {
    const n = cols.n[k];
    const range = <T>(f: (i: number) => T) => Array.from({ length: n }, (_, r) => f(at + r));
    let end = 0;
    for (let i = 0; i < at; i++) end += cols.il[i];
    const ids = range(() => "");
    for (let r = 0; r < n; r++) {
      ids[r] = cols.ids.slice(end, end + cols.il[at + r]);
      end += cols.il[at + r];
    }
    const out = { d, ids, name: range((i) => cols.name[i]), loc: range((i) => cols.loc[i]), ci: range((i) => cols.ci[i]), tags: range((i) => cols.sets[cols.ts[i]]) };
    at += n;
    return out;
  });
  const codes = new Int8Array(rows * DIMS);
  const scales = new Float32Array(rows);
  const read = (h: Parameters<typeof decodeRows>[0]) => {
    const out = decodeRows(h, codes, scales, null, DIMS, false)!;
    return out.map((x) => ({ documentId: x.documentId, at: x.at, n: x.n, rows: Array.from({ length: x.n }, (_, r) => [x.src.id(x.at + r), strings[x.src.name[x.at + r]], x.src.loc[x.at + r], x.src.ci[x.at + r], x.src.tags(x.at + r).map((t) => strings[t])]) }));
  };
  const byCols = read({ strings, docs: [], cols });
  expect(byCols).toEqual(read({ strings, docs }));
  // and they are the cache's rows
  expect(byCols.map((x) => x.documentId)).toEqual(blocks.map((b) => b.documentId));
  for (const [k, b] of blocks.entries()) for (let r = 0; r < b.n; r++) expect(byCols[k].rows[r]).toEqual([rowId(b, r), rowName(b, r), rowLocation(b, r) === null ? -1 : strings.indexOf(rowLocation(b, r)!), rowChunkIndex(b, r), rowTags(b, r)]);
  // a header that disagrees with the sections, or is malformed, reads as nothing (the load goes to LanceDB)
  expect(decodeRows({ strings, docs: [], cols }, codes.subarray(DIMS), scales.subarray(1), null, DIMS, false)).toBeNull();
  expect(decodeRows({ strings, docs: [], cols: { ...cols, il: cols.il.map((l, i) => (i === 0 ? l + 1 : l)) } }, codes, scales, null, DIMS, false)).toBeNull();
  expect(decodeRows({ strings, docs: [], cols: { ...cols, name: cols.name.map(() => strings.length) } }, codes, scales, null, DIMS, false)).toBeNull();
  expect(decodeRows({ strings, docs: docs.map((d, k) => (k === 3 ? { ...d, ci: d.ci.slice(1) } : d)) }, codes, scales, null, DIMS, false)).toBeNull();
});
