import { afterAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { commitSnapshot, readSnapshot, restoreInto, snapshotPath, writeSnapshotTmp } from "../../src/vectors/cacheSnapshot.ts";
import { indexPartPath } from "../../src/vectors/indexPart.ts";
import { INDEX_VERSION } from "../../src/vectors/ivfSnapshot.ts";
import { chunk, DenseEmbedder, snapshotText, tempDir } from "./helpers.ts";

// The IVF index kept beside a project's snapshot file, in its index part (src/vectors/indexPart.ts, ivfSnapshot.ts):
// a restart answers through it at once; a damaged or foreign part is dropped and trained anew; a file without one
// loads as before.
// All vectors here are plain JS arithmetic on fixed texts (the same on any CPU); the k-means is deterministic.

const tmp = tempDir();
afterAll(tmp.cleanup);

const emb = new DenseEmbedder();
const OPTS = { vectorIndexMinChunks: 200 };

const text = snapshotText;
const QUERIES = ["lantern smuggler harbour", "abbey crypt bell", "storm keeper lighthouse", "marsh barley ferry toll"];

async function fill(store: VectorStore, docs: number) {
  for (let d = 0; d < docs; d++) {
    const rows = Array.from({ length: 10 }, (_, i) => chunk("p", `d${d}`, i, text(d * 10 + i), [`t${(d + i) % 3}`]));
    await store.replaceDocumentChunks("p", `d${d}`, rows);
  }
}
const askAll = (store: VectorStore) => Promise.all(QUERIES.flatMap((query) => [["t0", "t1", "t2"], ["t1"]].map((tags) => store.searchVectorHits({ projectId: "p", query, tags, n: 8 }))));
const cacheOf = (store: VectorStore) => store.projectCache(store.activeGeneration(), "p");

/** A store whose project p (600 rows) has its index trained and saved in its snapshot file; the hits it gave. */
async function indexedWorld(name: string) {
  const dir = join(tmp.dir, name);
  const store = await VectorStore.open(dir, emb, OPTS);
  await fill(store, 60);
  await askAll(store); // loads the cache from LanceDB: the index trains in the background
  await (await cacheOf(store)).indexIdle();
  expect((await cacheOf(store)).mode).toBe("indexed");
  await store.snapshotsIdle();
  const hits = await askAll(store);
  await store.close();
  return { dir, hits };
}

test("a restarted store answers through the index saved in its snapshot, with no training, exactly as before", async () => {
  const { dir, hits } = await indexedWorld("restart");
  const store = await VectorStore.open(dir, emb, OPTS);
  const cache = await cacheOf(store);
  expect(store.cacheUsage().loadsFrom).toEqual({ snapshot: 1, lance: 0 });
  expect(cache.mode).toBe("indexed"); // at once: no build started
  expect(await askAll(store)).toEqual(hits); // the same lists probed in the same order: the same hits
  await store.close();
});

test("a damaged or foreign index part is dropped: the rows load from the file, the index is trained again", async () => {
  const { dir, hits } = await indexedWorld("damaged");
  const path = snapshotPath(dir, 1, "p");
  const partPath = indexPartPath(path);
  const good = join(tmp.dir, "good.ivf");
  copyFileSync(partPath, good);
  const rowsFile = statSync(path);
  // the part ends with the index: k centroid scales, k1 coarse scales, k1 group sizes, k group members, k list sizes,
  // the 600 rows' list entries (k lists for 600 rows: IvfIndex.defaultLists), then (k + k1) × 384 int8 codes
  const head = /"index":\{"v":(\d+),"k":(\d+),"k1":(\d+)/.exec(readFileSync(good).toString("latin1"))!;
  expect(Number(head[1])).toBe(INDEX_VERSION);
  const [k, k1] = [Number(head[2]), Number(head[3])];
  const entriesEnd = (b: Buffer) => b.length - (k + k1) * 384;
  const version = (v: number) => (b: Buffer) => (b.write(`"v":${v},`.padEnd(`"v":${INDEX_VERSION},`.length, " "), b.indexOf(`"index":{"v":${INDEX_VERSION}`) + 9, "latin1"), b);
  const damages: [string, (b: Buffer) => Buffer][] = [
    // the last two list entries made the same row: a row listed twice (and one not at all)
    ["a row listed twice", (b) => (b.writeInt32LE(b.readInt32LE(entriesEnd(b) - 8), entriesEnd(b) - 4), b)],
    ["a row number past the rows", (b) => (b.writeInt32LE(600, entriesEnd(b) - 4), b)],
    ["another index version", version(7)],
    // the layout before many small lists: it would answer, with the recall of its few big lists; trained anew
    ["the index as version 1 saved it", version(1)],
    // float32 centroids: it would answer as well, but a version is one layout; trained anew, in int8
    ["the index as version 2 saved it", version(2)],
    ["another part version", (b) => (b.write('{"v":7', b.indexOf('{"v":1,"rowsStamp"'), "latin1"), b)],
    // a part written over other rows (the stamp of another rows' file): its row numbers mean other rows
    ["made over other rows", (b) => (b.write("z", b.indexOf('"rowsStamp":"') + 13, "latin1"), b)],
    ["a coarse centroid's scale not a number", (b) => (b.writeFloatLE(Number.NaN, entriesEnd(b) - 4 * (600 + k + k + k1 + k1)), b)],
    ["a centroid's scale negative", (b) => (b.writeFloatLE(-0.01, entriesEnd(b) - 4 * (600 + k + k + k1 + k1 + k)), b)],
    ["cut short", (b) => b.subarray(0, b.length - 100)],
    ["not a part", () => Buffer.from("LHVIVFP1 not really")],
  ];
  for (const [what, damage] of damages) {
    writeFileSync(partPath, damage(readFileSync(good)));
    const store = await VectorStore.open(dir, emb, OPTS);
    const cache = await cacheOf(store);
    expect([what, store.cacheUsage().loadsFrom]).toEqual([what, { snapshot: 1, lance: 0 }]);
    expect([what, cache.mode]).toEqual([what, "building"]);
    // never used, and gone: nothing else can pick it up
    expect([what, existsSync(partPath)]).toEqual([what, false]);
    await cache.indexIdle();
    expect(cache.mode).toBe("indexed");
    // trained again on the same rows in the same order: the same centroids and lists as the first time
    expect(await askAll(store)).toEqual(hits);
    await store.snapshotsIdle();
    // the new index went to a new part, the rows' file left as it was
    expect([what, readFileSync(partPath).equals(readFileSync(good))]).toEqual([what, true]);
    expect([what, statSync(path).ino, statSync(path).mtimeMs]).toEqual([what, rowsFile.ino, rowsFile.mtimeMs]);
    await store.close();
  }
}, 120_000); // eleven restarts over LanceDB: longer than the default 5 s on a shared 2-core box

test("a snapshot without an index section (the layout before it) still loads, and trains its index", async () => {
  const dims = 384;
  const source = new ProjectVectorCache(dims, "p", { indexMinRows: 200 });
  const vectors = await emb.embed(Array.from({ length: 600 }, (_, i) => text(i)));
  for (let d = 0; d < 60; d++) {
    const rows = Array.from({ length: 10 }, (_, i) => chunk("p", `d${d}`, i, "", [`t${(d + i) % 3}`]));
    source.setDocument(`d${d}`, rows, vectors.slice(d * 10, d * 10 + 10));
  }
  await source.indexIdle();
  const path = join(tmp.dir, "old", "p.vc");
  // no extras: byte for byte what the writer produced before the index was saved
  commitSnapshot(await writeSnapshotTmp(path, { gen: 1, embedderId: emb.id, dims, projectId: "p" }, source.blocks()), path);
  const file = readSnapshot(path)!;
  expect(file.index).toBeNull();
  const restored = new ProjectVectorCache(dims, "p", { indexMinRows: 200 });
  restoreInto(restored, file);
  expect(restored.size).toBe(600);
  expect(restored.mode).toBe("building");
  await restored.indexIdle();
  expect(restored.mode).toBe("indexed");
  const [q] = await emb.embed(["lantern smuggler harbour"]);
  expect(restored.search(q, new Set(["t0", "t2"]), 8)).toEqual(source.search(q, new Set(["t0", "t2"]), 8));
});

test("a cache whose sparse queries were scanned by columns starts its column copy as soon as it is restored", async () => {
  const dims = 384;
  const hashing = new HashingEmbedder();
  const opts = { indexMinRows: 0, columnMinRows: 100 };
  const source = new ProjectVectorCache(dims, "p", opts);
  const vectors = await hashing.embed(Array.from({ length: 300 }, (_, i) => text(i)));
  for (let d = 0; d < 30; d++) {
    const rows = Array.from({ length: 10 }, (_, i) => chunk("p", `d${d}`, i, "", ["t0"]));
    source.setDocument(`d${d}`, rows, vectors.slice(d * 10, d * 10 + 10));
  }
  const path = join(tmp.dir, "cols", "p.vc");
  const save = async (c: ProjectVectorCache) => commitSnapshot(await writeSnapshotTmp(path, { gen: 1, embedderId: hashing.id, dims, projectId: "p" }, c.blocks(), { index: null, columns: c.extras().columns }), path);
  const restore = () => {
    const c = new ProjectVectorCache(dims, "p", opts);
    restoreInto(c, readSnapshot(path)!);
    return c;
  };
  await save(source);
  expect(restore().columnState).toBe("none"); // never searched by columns: no copy made for nothing
  const [q] = await hashing.embed(["lantern smuggler harbour"]);
  const hits = source.search(q, new Set(["t0"]), 8);
  await source.indexIdle();
  await save(source);
  const restored = restore();
  expect(restored.columnState).toBe("building");
  await restored.indexIdle();
  expect(restored.columnState).toBe("ready");
  expect(restored.search(q, new Set(["t0"]), 8)).toEqual(hits);
});
