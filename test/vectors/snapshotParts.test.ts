import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { commitSnapshot, readSnapshot, restoreInto, snapshotPath, writeSnapshotTmp } from "../../src/vectors/cacheSnapshot.ts";
import { defaultLists } from "../../src/vectors/IvfIndex.ts";
import { encodeIndex } from "../../src/vectors/ivfSnapshot.ts";
import { chunk, DenseEmbedder, snapshotText, tempDir } from "./helpers.ts";

// A project's snapshot in parts: the rows' file, and the IVF index in a part beside it (src/vectors/indexPart.ts),
// so training the index again writes the part alone. Vectors are plain JS arithmetic on fixed texts (the same on
// any CPU) and the k-means is deterministic. Each test opens stores three or four times over LanceDB: on a shared
// 2-core box that takes longer than bun's default 5 s, hence the timeouts.

const tmp = tempDir();
afterAll(tmp.cleanup);

const emb = new DenseEmbedder();
const OPTS = { vectorIndexMinChunks: 200 };
const text = snapshotText;
const QUERIES = ["lantern smuggler harbour", "abbey crypt bell", "storm keeper lighthouse"];
const askAll = (store: VectorStore) => Promise.all(QUERIES.map((query) => store.searchVectorHits({ projectId: "p", query, tags: ["t0", "t1", "t2"], n: 8 })));
const cacheOf = (store: VectorStore) => store.projectCache(store.activeGeneration(), "p");
const partOf = (rowsPath: string) => rowsPath.replace(/\.vc$/, ".ivf");
const fileId = (path: string) => {
  const s = statSync(path);
  return { ino: s.ino, mtimeMs: s.mtimeMs, size: s.size };
};

/** A closed store whose project p (600 rows) has its rows' file and index saved; its hits. */
async function savedWorld(name: string) {
  const dir = join(tmp.dir, name);
  const store = await VectorStore.open(dir, emb, OPTS);
  // one bulk write: sixty single-document writes cost seconds of LanceDB commits on a loaded box
  await store.replaceDocumentsChunks(
    "p",
    Array.from({ length: 60 }, (_, d) => ({ documentId: `d${d}`, rows: Array.from({ length: 10 }, (_, i) => chunk("p", `d${d}`, i, text(d * 10 + i), [`t${(d + i) % 3}`])) })),
  );
  await askAll(store);
  await (await cacheOf(store)).indexIdle();
  await store.snapshotsIdle();
  const hits = await askAll(store);
  await store.close();
  return { dir, path: snapshotPath(dir, 1, "p"), hits };
}

/** Rewrites the rows' file as the cache's rows alone, with no index anywhere (what a restart then trains). */
async function rowsOnly(path: string, keepStamp: boolean) {
  const file = readSnapshot(path)!;
  const c = new ProjectVectorCache(file.header.dims, "p", { indexMinRows: 0 });
  restoreInto(c, file);
  const { gen, embedderId, dims, projectId, stamp } = file.header;
  commitSnapshot(await writeSnapshotTmp(path, { gen, embedderId, dims, projectId, ...(keepStamp ? { stamp } : {}) }, c.blocks()), path);
  if (existsSync(partOf(path))) unlinkSync(partOf(path));
}

test("an index trained over the rows' file on disk writes its index part alone: the rows' file is not written again", async () => {
  const { dir, path, hits } = await savedWorld("retrain");
  await rowsOnly(path, true);
  const before = fileId(path);
  const store = await VectorStore.open(dir, emb, OPTS);
  const cache = await cacheOf(store);
  expect(store.cacheUsage().loadsFrom).toEqual({ snapshot: 1, lance: 0 });
  expect(cache.mode).toBe("building");
  await cache.indexIdle();
  await store.snapshotsIdle();
  expect(fileId(path)).toEqual(before);
  // the part is what was written: 4 B a row (~2 KB a row in the rows' file) and the centroids, 1.5 KB a list (at
  // 600 rows the 16·√N lists' centroids are most of it; at 100k rows the part is ~4 % of the rows' file)
  expect(statSync(partOf(path)).size).toBeLessThan(before.size / 10 + defaultLists(600) * 384 * 4 * 1.1);
  await store.close();
  expect(fileId(path)).toEqual(before); // nor at close: nothing changed
  const again = await VectorStore.open(dir, emb, OPTS);
  expect((await cacheOf(again)).mode).toBe("indexed"); // at once, from the part
  expect(await askAll(again)).toEqual(hits);
  await again.close();
}, 60_000);

test("a write sets the rows' file aside; the next save appends the change to its tail, and the index part, listing the rows before it, stays", async () => {
  const { dir, path } = await savedWorld("write");
  const stampBefore = readSnapshot(path)!.header.stamp;
  const before = fileId(path);
  const partBefore = fileId(partOf(path));
  const store = await VectorStore.open(dir, emb, OPTS);
  expect((await cacheOf(store)).mode).toBe("indexed");
  await store.replaceDocumentChunks("p", "new", [chunk("p", "new", 0, "lantern smuggler harbour", ["t0"])]);
  expect([existsSync(path), existsSync(`${path}.held`), existsSync(partOf(path))]).toEqual([false, true, true]);
  const hits = await askAll(store);
  await store.close();
  // neither the rows' file nor the part is written again: the change is in the tail
  expect(fileId(path)).toEqual(before);
  expect(fileId(partOf(path))).toEqual(partBefore);
  expect(readFileSync(partOf(path)).includes(`"rowsStamp":"${stampBefore}"`)).toBe(true);
  expect(statSync(path.replace(/\.vc$/, ".vct")).size).toBeLessThan(before.size / 50);
  const again = await VectorStore.open(dir, emb, OPTS);
  const cache = await cacheOf(again);
  expect(again.cacheUsage().loadsFrom).toEqual({ snapshot: 1, lance: 0 });
  expect(cache.mode).toBe("indexed"); // the part's index over the rows' file, the tail applied to it as a write
  expect(cache.size).toBe(601);
  expect(await askAll(again)).toEqual(hits);
  expect(hits[0][0].documentId).toBe("new");
  await again.close();
}, 60_000);

test("a crash between the two renames (the rows' file new, its part missing or a temporary left) costs a training, nothing else", async () => {
  const { dir, path, hits } = await savedWorld("crash");
  unlinkSync(partOf(path));
  writeFileSync(`${partOf(path)}.tmp`, "half a part");
  const store = await VectorStore.open(dir, emb, OPTS);
  const cache = await cacheOf(store);
  expect(store.cacheUsage().loadsFrom).toEqual({ snapshot: 1, lance: 0 });
  expect(cache.mode).toBe("building");
  await cache.indexIdle();
  expect(await askAll(store)).toEqual(hits);
  await store.snapshotsIdle();
  expect(existsSync(partOf(path))).toBe(true);
  await store.close();
  const again = await VectorStore.open(dir, emb, OPTS);
  expect((await cacheOf(again)).mode).toBe("indexed");
  await again.close();
}, 60_000);

test("a single-file snapshot of the layout before parts still loads with its index; one without a stamp gets a part once", async () => {
  const { dir, path, hits } = await savedWorld("legacy");
  // the layout before: the index after the vectors in the one file, and no stamp (blanked out: JSON ignores spaces)
  const file = readSnapshot(path)!;
  const c = new ProjectVectorCache(384, "p", { indexMinRows: 200 });
  restoreInto(c, file);
  await c.indexIdle();
  const blocks = c.blocks();
  const ex = c.extras();
  const index = await encodeIndex(ex.index!.parts, ex.index!.trainedRows, blocks, async () => {});
  const { gen, embedderId, dims, projectId } = file.header;
  const writeLegacy = async (withIndex: boolean) => {
    commitSnapshot(await writeSnapshotTmp(path, { gen, embedderId, dims, projectId }, blocks, { index: withIndex ? index : null, columns: false }), path);
    const bytes = readFileSync(path);
    const at = bytes.indexOf('"stamp":"');
    const end = bytes.indexOf('",', at) + 2;
    bytes.fill(0x20, at, end);
    writeFileSync(path, bytes);
    if (existsSync(partOf(path))) unlinkSync(partOf(path));
    expect(readSnapshot(path)!.header.stamp).toBeUndefined();
  };

  await writeLegacy(true);
  const before = fileId(path);
  let store = await VectorStore.open(dir, emb, OPTS);
  expect((await cacheOf(store)).mode).toBe("indexed"); // from the file's own index section
  expect(await askAll(store)).toEqual(hits);
  await store.snapshotsIdle();
  await store.close();
  expect(fileId(path)).toEqual(before); // nothing to save: it stays as it is

  // without its index: trained, and the file (unstamped, so no part can name it) written again once, with a part
  await writeLegacy(false);
  store = await VectorStore.open(dir, emb, OPTS);
  await (await cacheOf(store)).indexIdle();
  await store.snapshotsIdle();
  expect(typeof readSnapshot(path)!.header.stamp).toBe("string");
  expect(existsSync(partOf(path))).toBe(true);
  await store.close();
  store = await VectorStore.open(dir, emb, OPTS);
  expect((await cacheOf(store)).mode).toBe("indexed");
  expect(await askAll(store)).toEqual(hits);
  await store.close();
}, 60_000);

// The save after a load from LanceDB and the index training start together; whichever ends first, the rows' file
// is written once and kept, and the index goes to its part (before, a training that ended during the save dropped
// the file and wrote it whole again, index included).
test("a rows' file written while the index trains is kept, and the index part follows it", async () => {
  const dir = join(tmp.dir, "across");
  const store = await VectorStore.open(dir, emb, OPTS);
  await store.replaceDocumentsChunks(
    "p",
    Array.from({ length: 60 }, (_, d) => ({ documentId: `d${d}`, rows: Array.from({ length: 10 }, (_, i) => chunk("p", `d${d}`, i, text(d * 10 + i), [`t${(d + i) % 3}`])) })),
  );
  // hold the save that follows the load from LanceDB between writing its file and keeping it
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const atCommit = new Promise<void>((r) => (reached = r));
  const caches = (store as unknown as { caches: { beforeCommit: (() => Promise<void>) | null } }).caches;
  caches.beforeCommit = () => {
    caches.beforeCommit = null;
    reached();
    return held;
  };
  await askAll(store);
  await atCommit;
  const path = snapshotPath(dir, 1, "p");
  const written = statSync(`${path}.tmp`).ino;
  await (await cacheOf(store)).indexIdle(); // the index swaps in (if it had not yet) while that file waits
  const hits = await askAll(store);
  release();
  await store.snapshotsIdle();
  // the file written before the index was kept (a rename keeps its inode), not dropped and written again
  expect(statSync(path).ino).toBe(written);
  expect(existsSync(partOf(path))).toBe(true);
  await store.close();
  expect(statSync(path).ino).toBe(written);
  const again = await VectorStore.open(dir, emb, OPTS);
  expect((await cacheOf(again)).mode).toBe("indexed");
  expect(await askAll(again)).toEqual(hits);
  await again.close();
}, 60_000);
