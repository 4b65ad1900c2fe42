import { expect, test } from "bun:test";
import { blockCodes } from "../../src/vectors/cacheBlocks.ts";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { chunk } from "./helpers.ts";

// The index's lists as the search walks them: dense rows' codes held in list order by the index (their blocks keep
// none), rows that are not (written since, sparse) scanned from their blocks, tag filtering exact over both.
// Seeded plain JS arithmetic on clustered dense vectors: the same on any CPU.
const DIMS = 64;
function rng(seed: number) {
  let x = seed;
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296) * 2 - 1;
}
const r = rng(11);
const CENTRES = Array.from({ length: 24 }, () => Float32Array.from({ length: DIMS }, () => r()));
const near = (c: number, noise: number, rr: () => number) => Float32Array.from(CENTRES[c], (x) => x + noise * rr());
/** 40 tags: past the 32 a cache gives bits, so some rows are checked by name */
const TAGS = Array.from({ length: 40 }, (_, i) => `t${i}`);

function fill(cache: ProjectVectorCache, from: number, docs: number, salt = 0) {
  for (let d = from; d < from + docs; d++) {
    const rows = Array.from({ length: 30 }, (_, i) => chunk("p", `d${d}`, i, "", [TAGS[(d * 3 + i) % TAGS.length]]));
    const own = rng(5000 + d + salt);
    cache.setDocument(`d${d}`, rows, rows.map((_, i) => near((d * 5 + i) % CENTRES.length, 0.4, own)));
  }
}

/** The cache's answer checked against the rule: every hit visible and not excluded, as many as the visible rows allow. */
function checkFilter(ix: ProjectVectorCache, exact: ProjectVectorCache, q: number, qr: () => number) {
  const tags = new Set(TAGS.filter((_, i) => (i * 7 + q) % 13 === 0)); // 3–4 tags of 40, some past the 32nd
  const exclude = (id: string) => Number(id.slice(1)) % 9 === q % 9;
  const query = near(q % CENTRES.length, 0.6, qr);
  const got = ix.search(query, tags, 20, exclude);
  const all = exact.search(query, tags, 100_000, exclude);
  for (const h of got) {
    expect(h.tags.some((t) => tags.has(t))).toBe(true); // no leak
    expect(exclude(h.documentId)).toBe(false);
  }
  expect(got).toHaveLength(Math.min(20, all.length)); // never fewer hits than the visible set has
  return { got, want: all.slice(0, 4) };
}

test("the index holds dense rows' codes in list order: the blocks keep none, read theirs back exactly, and the cache's bytes do not grow", async () => {
  const ix = new ProjectVectorCache(DIMS, "p", { indexMinRows: 1000 });
  const plain = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  fill(ix, 0, 60);
  fill(plain, 0, 60);
  const before = ix.blocks().map((b) => blockCodes(b, DIMS).slice());
  await ix.indexIdle();
  expect(ix.mode).toBe("indexed");
  const blocks = ix.blocks();
  expect(blocks.every((b) => b.codes === null && b.home !== null)).toBe(true);
  // a block asked for its codes (a snapshot's save, the next training) gets the very codes it had
  blocks.forEach((b, i) => expect(blockCodes(b, DIMS)).toEqual(before[i]));
  // the codes moved, not copied: the index's structure beyond them is a few bytes a row (4 B entry, 12 B of scale,
  // tag bits and position) and its int8 centroids (16·√1800 = 679 lists × 68 B: ~26 B a row here, ~5 at 100k)
  const ivf = (ix as unknown as { ivf: { bytes: number; rowBytes: number } }).ivf;
  const plainBytes = plain.bytes;
  expect(ix.bytes).toBeLessThan(plainBytes + 1800 * 50);
  expect((ivf.bytes - ivf.rowBytes) / 1800).toBeLessThan(40);
});

test("tag filtering over the lists is exact, rows past 32 tags and excluded documents included; writes after the build join, dead rows never come back", async () => {
  const ix = new ProjectVectorCache(DIMS, "p", { indexMinRows: 1000 });
  const exact = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  fill(ix, 0, 60);
  fill(exact, 0, 60);
  await ix.indexIdle();
  const qr = rng(77);
  let found = 0;
  let wanted = 0;
  const round = () => {
    for (let q = 0; q < 40; q++) {
      const { got, want } = checkFilter(ix, exact, q, qr);
      const ids = new Set(got.slice(0, 4).map((h) => h.id));
      found += want.filter((h) => ids.has(h.id)).length;
      wanted += want.length;
    }
  };
  round();
  // written after the build (listed, waiting beside the compacted lists), replaced and deleted documents
  fill(ix, 60, 10);
  fill(exact, 60, 10);
  fill(ix, 0, 5, 1);
  fill(exact, 0, 5, 1);
  for (const c of [ix, exact]) for (let d = 10; d < 20; d++) c.deleteDocument(`d${d}`);
  round();
  for (const h of ix.search(near(3, 0.6, qr), new Set(TAGS), 500)) expect(Number(h.documentId.slice(1)) >= 10 && Number(h.documentId.slice(1)) < 20).toBe(false);
  // enough deleted to compact the lists (a quarter of the rows dead): the answers hold on the compacted lists
  for (const c of [ix, exact]) for (let d = 20; d < 45; d++) c.deleteDocument(`d${d}`);
  round();
  expect(ix.blocks().filter((b) => b.codes === null).length).toBeGreaterThan(0);
  // 24 clusters, 10 % of the lists probed: measured 0.99 here; 0.9 leaves room for any arithmetic order
  expect(found / wanted).toBeGreaterThanOrEqual(0.9);
});

test("a sparse project's rows stay in their blocks, and writes after the build do not compact the lists each time", async () => {
  // the hashing embedder's rows: a few dozen non-zero dims of 384, which the index leaves in their blocks
  const dims = 384;
  const sparse = (seed: number) => {
    const v = new Float32Array(dims);
    const rr = rng(seed);
    for (let j = 0; j < 20; j++) v[Math.floor(((rr() + 1) / 2) * dims) % dims] += 1 + rr();
    return v;
  };
  const ix = new ProjectVectorCache(dims, "p", { indexMinRows: 1000 });
  const put = (d: number) => {
    const rows = Array.from({ length: 20 }, (_, i) => chunk("p", `d${d}`, i, "", [TAGS[d % TAGS.length]]));
    ix.setDocument(`d${d}`, rows, rows.map((_, i) => sparse(d * 100 + i)));
  };
  for (let d = 0; d < 60; d++) put(d);
  await ix.indexIdle();
  expect(ix.mode).toBe("indexed");
  expect(ix.blocks().every((b) => b.codes !== null)).toBe(true);
  const lists = (ix as unknown as { ivf: { lists: { compact(): void } } }).ivf.lists;
  let compactions = 0;
  const compact = lists.compact.bind(lists);
  lists.compact = () => {
    compactions++;
    compact();
  };
  for (let d = 60; d < 80; d++) put(d);
  // 400 rows written on 1,200: fewer than an eighth of them waiting at any write, so no compaction at all
  expect(compactions).toBe(0);
});
