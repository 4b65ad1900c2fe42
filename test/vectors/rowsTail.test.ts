import { afterAll, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { readSnapshot, snapshotPath } from "../../src/vectors/cacheSnapshot.ts";
import type { ProjectCaches } from "../../src/vectors/ProjectCaches.ts";
import { chunk, DenseEmbedder, snapshotText, tempDir } from "./helpers.ts";

// The rows' file's tail (src/vectors/rowsTail.ts): a save after a small change appends the change instead of writing
// every row again, and whatever the files become, a load gives exactly the rows LanceDB holds (or goes to LanceDB).
// Vectors are plain JS arithmetic on fixed texts (the same on any CPU). Each test opens stores several times over
// LanceDB: on a shared 2-core box that takes longer than bun's default 5 s, hence the timeouts.

const tmp = tempDir();
afterAll(tmp.cleanup);

const emb = new DenseEmbedder();
/** the exact scan (no index): every load path ranks the same rows the same */
const EXACT = {};
/** the index from 200 rows, so its part is written and read */
const INDEXED = { vectorIndexMinChunks: 200 };
const QUERIES = ["lantern smuggler harbour", "abbey crypt bell", "storm keeper lighthouse", "ferry toll marsh", "barley cellar part 7"];
const TAGS = ["t0", "t1", "t2"];
const cachesOf = (store: VectorStore) => (store as unknown as { caches: ProjectCaches }).caches;
const cacheOf = (store: VectorStore) => store.projectCache(store.activeGeneration(), "p");
const tailOf = (path: string) => path.replace(/\.vc$/, ".vct");
const partOf = (path: string) => path.replace(/\.vc$/, ".ivf");
const fileId = (path: string) => {
  const s = statSync(path);
  return { ino: s.ino, mtimeMs: s.mtimeMs, size: s.size };
};
const doc = (d: string, n: number, from: number) => ({ documentId: d, rows: Array.from({ length: n }, (_, i) => chunk("p", d, i, snapshotText(from + i), [`t${(from + i) % 3}`])) });

/** Every query's hits, as ids and scores (ties, if any, in id order: the load paths restore rows in different orders). */
async function hitsOf(store: VectorStore) {
  const all = await Promise.all(QUERIES.map((query) => store.searchVectorHits({ projectId: "p", query, tags: TAGS, n: 8 })));
  return all.map((hits) => hits.map((h) => `${h.id} ${h.score.toFixed(6)}`).sort());
}

/** A closed store whose project p (60 documents of 10 rows) has its rows' file (and with an index, its part) saved. */
async function savedWorld(name: string, opts: object) {
  const dir = join(tmp.dir, name);
  const store = await VectorStore.open(dir, emb, opts);
  await store.replaceDocumentsChunks("p", Array.from({ length: 60 }, (_, d) => doc(`d${d}`, 10, d * 10)));
  await hitsOf(store);
  await (await cacheOf(store)).indexIdle();
  await store.snapshotsIdle();
  await store.close();
  return { dir, path: snapshotPath(dir, 1, "p") };
}

/**
 * A small change: one document added, one replaced by as many new rows (a row count alone cannot tell), one deleted;
 * to a loaded cache, which knows what its files hold (a server loads its projects at boot while its budget allows).
 */
async function smallChange(store: VectorStore) {
  await cacheOf(store);
  await store.replaceDocumentsChunks("p", [doc("new", 3, 900), doc("d3", 10, 700)]);
  await store.deleteDocument("p", "d7");
}

/** Opens a copy of the data folder as a server would after dying with those files: its rows, hits and load path. */
async function reopen(dir: string, opts: object) {
  const store = await VectorStore.open(dir, emb, opts);
  const cache = await cacheOf(store);
  const out = { size: cache.size, hits: await hitsOf(store), from: store.cacheUsage().loadsFrom.snapshot ? "snapshot" : "lance", mode: cache.mode };
  await store.close();
  return out;
}

test("a save after a small change appends it to a tail: the rows' file is not written again, and a restart restores the rows exactly", async () => {
  const { dir, path } = await savedWorld("append", EXACT);
  const before = fileId(path);
  const store = await VectorStore.open(dir, emb, EXACT);
  await smallChange(store);
  const hits = await hitsOf(store);
  await store.close();
  expect(fileId(path)).toEqual(before);
  // the tail holds 13 new rows (~2 KB each on disk, as in the rows' file) and the one deleted id: a small write
  const tail = statSync(tailOf(path)).size;
  expect(tail).toBeGreaterThan(13 * 384 * 4);
  expect(tail).toBeLessThan(before.size / 20);
  const again = await reopen(dir, EXACT);
  expect(again).toMatchObject({ from: "snapshot", size: 593, hits });
  // a second small change appends a second segment over the first
  const store2 = await VectorStore.open(dir, emb, EXACT);
  await cacheOf(store2);
  await store2.replaceDocumentsChunks("p", [doc("later", 2, 950)]);
  const hits2 = await hitsOf(store2);
  await store2.close();
  expect(fileId(path)).toEqual(before);
  expect(statSync(tailOf(path)).size).toBeGreaterThan(tail);
  expect(await reopen(dir, EXACT)).toMatchObject({ from: "snapshot", size: 595, hits: hits2 });
}, 60_000);

test("past its share of the rows the tail is folded into a new rows' file, and the tail goes", async () => {
  const { dir, path } = await savedWorld("fold", EXACT);
  const stamp = readSnapshot(path)!.header.stamp;
  const store = await VectorStore.open(dir, emb, EXACT);
  await cacheOf(store);
  // 70 new rows over 600: past 10 %
  await store.replaceDocumentsChunks("p", Array.from({ length: 7 }, (_, d) => doc(`more${d}`, 10, 1000 + d * 10)));
  const hits = await hitsOf(store);
  await store.close();
  expect(store.cacheUsage().loadsFrom).toEqual({ snapshot: 1, lance: 0 });
  expect(readSnapshot(path)!.header.stamp).not.toBe(stamp);
  expect(readSnapshot(path)!.header.rows).toBe(670);
  expect(existsSync(tailOf(path))).toBe(false);
  expect(await reopen(dir, EXACT)).toMatchObject({ from: "snapshot", size: 670, hits });
}, 60_000);

// A crash is the files as they are at that moment: each step of a save copies the whole data folder (LanceDB and
// the snapshot files), and a store opened on each copy must hold exactly the rows LanceDB holds.
for (const path of ["append", "fold"] as const) {
  test(`a crash at any step of a save (${path === "append" ? "a segment appended" : "the tail folded into a new rows' file"}) leaves files that load the right rows or none`, async () => {
    const { dir } = await savedWorld(`crash-${path}`, EXACT);
    const store = await VectorStore.open(dir, emb, EXACT);
    const images: { step: string; dir: string }[] = [];
    const image = (step: string) => {
      const to = join(tmp.dir, `crash-${path}-${images.length}-${step}`);
      cpSync(dir, to, { recursive: true });
      images.push({ step, dir: to });
    };
    await smallChange(store);
    const hits = await hitsOf(store);
    image("written"); // the writes committed, nothing saved yet
    const caches = cachesOf(store);
    if (path === "fold") caches.tailShare = 0.001;
    caches.onStep = image;
    await store.close();
    image("closed");
    const steps = images.map((i) => i.step);
    expect(steps).toEqual(path === "append" ? ["written", "segment", "part", "release", "closed"] : ["written", "drop", "rows", "part", "closed"]);
    const loads: string[] = [];
    for (const i of images) {
      const got = await reopen(i.dir, EXACT);
      expect({ step: i.step, size: got.size, hits: got.hits }).toEqual({ step: i.step, size: 593, hits });
      loads.push(got.from);
    }
    // until the last step the rows' file is aside (or gone) and the load goes to LanceDB; after it, the files serve
    expect(loads).toEqual(path === "append" ? ["lance", "lance", "lance", "lance", "snapshot"] : ["lance", "lance", "lance", "snapshot", "snapshot"]);
  }, 120_000);
}

test("the index part lists the rows before the tail and a load applies the tail to it: a restart answers through the index at once, as before it", async () => {
  const { dir, path } = await savedWorld("indexed", INDEXED);
  const part = readFileSync(partOf(path));
  const store = await VectorStore.open(dir, emb, INDEXED);
  expect((await cacheOf(store)).mode).toBe("indexed");
  await smallChange(store);
  const hits = await hitsOf(store);
  await store.close();
  expect(existsSync(tailOf(path))).toBe(true);
  expect(readFileSync(partOf(path)).equals(part)).toBe(true); // not written again
  expect(await reopen(dir, INDEXED)).toMatchObject({ from: "snapshot", mode: "indexed", size: 593, hits });
  // a second change: still the same part, its index under two segments
  const store2 = await VectorStore.open(dir, emb, INDEXED);
  await cacheOf(store2);
  await store2.deleteDocument("p", "d11");
  const hits2 = await hitsOf(store2);
  await store2.close();
  expect(readFileSync(partOf(path)).equals(part)).toBe(true);
  expect(await reopen(dir, INDEXED)).toMatchObject({ from: "snapshot", mode: "indexed", size: 583, hits: hits2 });
}, 60_000);

test("after a fold, the part of the rows before (its row numbers another file's) is dropped and the index trained again", async () => {
  const { dir, path } = await savedWorld("refold", INDEXED);
  const part = readFileSync(partOf(path));
  const store = await VectorStore.open(dir, emb, INDEXED);
  await cacheOf(store);
  cachesOf(store).tailShare = 0.001;
  await smallChange(store);
  await store.close();
  expect(existsSync(tailOf(path))).toBe(false);
  expect(readFileSync(partOf(path)).equals(part)).toBe(false);
  writeFileSync(partOf(path), part);
  const again = await VectorStore.open(dir, emb, INDEXED);
  const cache = await cacheOf(again);
  expect(again.cacheUsage().loadsFrom).toEqual({ snapshot: 1, lance: 0 });
  expect(cache.mode).toBe("building");
  await cache.indexIdle();
  expect(cache.mode).toBe("indexed");
  expect(cache.size).toBe(593);
  await again.close();
}, 60_000);

test("a part listing a view of the tail that fails the index's checks is dropped; the rows load and the index is trained again", async () => {
  const { dir, path } = await savedWorld("badpart", INDEXED);
  const store = await VectorStore.open(dir, emb, INDEXED);
  await smallChange(store);
  await store.close();
  const part = readFileSync(partOf(path));
  // the same size, the header intact, its sections zeroed: the centroids pass as finite but every list is empty
  const len = part.readUInt32LE(8);
  const at = Math.ceil((12 + len) / 64) * 64;
  part.fill(0, at);
  writeFileSync(partOf(path), part);
  const again = await VectorStore.open(dir, emb, INDEXED);
  const cache = await cacheOf(again);
  expect(again.cacheUsage().loadsFrom).toEqual({ snapshot: 1, lance: 0 });
  expect(cache.mode).toBe("building");
  expect(existsSync(partOf(path))).toBe(false);
  await cache.indexIdle();
  expect(cache.size).toBe(593);
  await again.close();
}, 60_000);

test("a tail cut short or garbled sends the load to LanceDB; one left over from another rows' file is ignored", async () => {
  const { dir, path } = await savedWorld("damaged", EXACT);
  const store = await VectorStore.open(dir, emb, EXACT);
  await smallChange(store);
  const hits = await hitsOf(store);
  await store.close();
  const tail = readFileSync(tailOf(path));
  const copy = (name: string, tailBytes: Buffer | null) => {
    const to = join(tmp.dir, `damaged-${name}`);
    cpSync(dir, to, { recursive: true });
    const p = snapshotPath(to, 1, "p");
    if (tailBytes) writeFileSync(tailOf(p), tailBytes);
    return to;
  };
  const cut = copy("cut", tail.subarray(0, tail.length - 64));
  expect(await reopen(cut, EXACT)).toMatchObject({ from: "lance", size: 593, hits });
  const garbled = Buffer.from(tail);
  garbled.write("XXXXXXXX", 0, "latin1");
  expect(await reopen(copy("garbled", garbled), EXACT)).toMatchObject({ from: "lance", size: 593, hits });
  // a tail naming another rows' file (its first segment's base): the rows' file alone is what a load restores; it
  // is no longer LanceDB's rows here, so the row count sends it to LanceDB too; the point is the tail is not applied
  const foreign = Buffer.from(tail.toString("latin1").replace(/"base":"[^"]{4}/, '"base":"zzzz'), "latin1");
  expect(foreign.length).toBe(tail.length);
  expect(await reopen(copy("foreign", foreign), EXACT)).toMatchObject({ from: "lance", size: 593, hits });
}, 60_000);

test("deleting a project removes its rows' file, set aside or not, its tail and its index part", async () => {
  const { dir, path } = await savedWorld("delete", INDEXED);
  const store = await VectorStore.open(dir, emb, INDEXED);
  await smallChange(store);
  await store.snapshotsIdle();
  await store.close();
  expect(existsSync(tailOf(path))).toBe(true);
  const again = await VectorStore.open(dir, emb, INDEXED);
  await cacheOf(again);
  await again.deleteProject("p");
  await again.close();
  expect(readdirSync(join(path, ".."))).toEqual([]);
}, 60_000);

test("an index first trained after the rows' file was set aside is written with the segment, over the view after it", async () => {
  const opts = { vectorIndexMinChunks: 610 };
  const { dir, path } = await savedWorld("trained", opts);
  expect(existsSync(partOf(path))).toBe(false); // 600 rows: no index yet
  const store = await VectorStore.open(dir, emb, opts);
  const cache = await cacheOf(store);
  await store.replaceDocumentsChunks("p", [doc("grown", 20, 1200)]);
  await cache.indexIdle();
  expect(cache.mode).toBe("indexed");
  const hits = await hitsOf(store);
  await store.close();
  expect(existsSync(tailOf(path))).toBe(true);
  const tail = readFileSync(tailOf(path)).toString("latin1");
  const stamp = /"stamp":"([^"]+)"/.exec(tail)![1];
  expect(readFileSync(partOf(path)).includes(`"rowsStamp":"${stamp}"`)).toBe(true);
  expect(await reopen(dir, opts)).toMatchObject({ from: "snapshot", mode: "indexed", size: 620, hits });
}, 60_000);

// An evicted cache gets no more writes. Its save, queued behind another save of the project, once read the epoch
// when it began: a write landing between the eviction and that moment went unseen, and the evicted rows (without
// it) were kept as the project's files. A replace of as many rows keeps the count, so no load check caught it.
test("an evicted cache's save, begun after a write it never saw, is dropped: the next load does not restore rows from before the write", async () => {
  const dir = join(tmp.dir, "evicted");
  const opts = { vectorCacheMb: 0.2 }; // p or q (~150 KB each), not both
  let store = await VectorStore.open(dir, emb, opts);
  await store.replaceDocumentsChunks("p", Array.from({ length: 30 }, (_, d) => doc(`d${d}`, 10, d * 10)));
  await store.replaceDocumentsChunks("q", [{ documentId: "q0", rows: Array.from({ length: 300 }, (_, i) => chunk("q", "q0", i, snapshotText(2000 + i), ["t0"])) }]);
  await cacheOf(store);
  await store.close();
  store = await VectorStore.open(dir, emb, opts);
  const caches = cachesOf(store);
  const g = store.activeGeneration();
  const p = await cacheOf(store);
  await store.replaceDocumentsChunks("p", [doc("d1", 10, 500)]);
  // a save of p held before it commits; the eviction's save then waits behind it
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  caches.beforeCommit = () => {
    caches.beforeCommit = null;
    return held;
  };
  caches.save(g, p);
  await store.projectCache(g, "q"); // over the budget: p is evicted, its save queued
  expect(g.vectorCache.has("p")).toBe(false);
  await store.replaceDocumentsChunks("p", [doc("d1", 10, 800)]); // as many rows: the count cannot tell
  release();
  await store.snapshotsIdle();
  // the replaced document's own text finds its first row, scored as itself (a stale row scores far lower)
  const own = (s: VectorStore) => s.searchVectorHits({ projectId: "p", query: snapshotText(800), tags: TAGS, n: 1 });
  const [live] = await own(store);
  expect(live.id).toBe("p:d1:0");
  await store.close();
  const again = await VectorStore.open(dir, emb, opts);
  const [back] = await own(again);
  expect({ id: back.id, score: back.score.toFixed(4) }).toEqual({ id: live.id, score: live.score.toFixed(4) });
  await again.close();
}, 60_000);

test("once the rows added after the part's view pass their bound, the save writes the part again over the view after its segment", async () => {
  const { dir, path } = await savedWorld("lag", INDEXED);
  const part = readFileSync(partOf(path));
  const store = await VectorStore.open(dir, emb, INDEXED);
  await cacheOf(store);
  cachesOf(store).partLagRows = 12; // the change adds 13 rows
  await smallChange(store);
  const hits = await hitsOf(store);
  await store.close();
  const stamp = /"stamp":"([^"]+)"/.exec(readFileSync(tailOf(path)).toString("latin1"))![1];
  const now = readFileSync(partOf(path));
  expect(now.equals(part)).toBe(false);
  expect(now.includes(`"rowsStamp":"${stamp}"`)).toBe(true);
  expect(await reopen(dir, INDEXED)).toMatchObject({ from: "snapshot", mode: "indexed", size: 593, hits });
}, 60_000);

test("a crash at any step of a save that writes the index part with its segment leaves files that load the right rows or none", async () => {
  const { dir } = await savedWorld("crash-part", INDEXED);
  const store = await VectorStore.open(dir, emb, INDEXED);
  const images: { step: string; dir: string }[] = [];
  const caches = cachesOf(store);
  caches.partLagRows = 12;
  await smallChange(store);
  const hits = await hitsOf(store);
  caches.onStep = (step) => {
    const to = join(tmp.dir, `crash-part-${images.length}-${step}`);
    cpSync(dir, to, { recursive: true });
    images.push({ step, dir: to });
  };
  await store.close();
  expect(images.map((i) => i.step)).toEqual(["segment", "part", "release"]);
  for (const i of images) {
    // the rows' file aside at every step: LanceDB's rows (their index trained again; the exact scan answers meanwhile)
    const got = await reopen(i.dir, INDEXED);
    expect({ step: i.step, from: got.from, size: got.size }).toEqual({ step: i.step, from: "lance", size: 593 });
  }
  expect(await reopen(dir, INDEXED)).toMatchObject({ from: "snapshot", mode: "indexed", size: 593, hits });
}, 120_000);

test("a save that runs after a write has set the rows' file aside and before LanceDB has the write is not kept: a crash after the commit loads the write", async () => {
  const { dir } = await savedWorld("write-race", EXACT);
  const store = await VectorStore.open(dir, emb, EXACT);
  const caches = cachesOf(store);
  const g = store.activeGeneration();
  const cache = await cacheOf(store);
  await store.replaceDocumentsChunks("p", [doc("new", 3, 900)]); // the files now lag the cache: a save has news
  const readersWaiting = () => (g.chunkGate as unknown as { waitingReaders: unknown[] }).waitingReaders.length;
  let image = "";
  caches.onWriteStep = async (step) => {
    if (step === "set aside") {
      // a save started at this moment (an eviction, an index just trained): run until it is done, or until it
      // waits for the write (whichever the code allows; neither depends on the machine's pace)
      caches.save(g, cache);
      let waiting = false;
      const done = store.snapshotsIdle().then(() => true);
      while (!waiting && !(await Promise.race([done, Bun.sleep(1).then(() => false)]))) waiting = readersWaiting() > 0;
      return;
    }
    // LanceDB has the write, the cache not yet: the process dies here
    caches.onWriteStep = null;
    image = join(tmp.dir, "write-race-crash");
    cpSync(dir, image, { recursive: true });
  };
  await store.replaceDocumentsChunks("p", [doc("d3", 10, 700)]); // as many rows as before: the count cannot tell
  await store.snapshotsIdle();
  // the replaced document's own text finds its first row, scored as itself (a stale row scores far lower)
  const own = (s: VectorStore) => s.searchVectorHits({ projectId: "p", query: snapshotText(700), tags: TAGS, n: 1 });
  const [live] = await own(store);
  expect(live.id).toBe("p:d3:0");
  await store.close();
  const again = await VectorStore.open(image, emb, EXACT);
  const [back] = await own(again);
  expect({ id: back.id, score: back.score.toFixed(4), size: (await cacheOf(again)).size }).toEqual({ id: live.id, score: live.score.toFixed(4), size: 603 });
  await again.close();
}, 60_000);
