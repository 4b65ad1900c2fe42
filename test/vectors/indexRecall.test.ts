import { expect, test } from "bun:test";
import { prepareQuery, TopN } from "../../src/vectors/cacheBlocks.ts";
import { defaultLists, IvfIndex } from "../../src/vectors/IvfIndex.ts";
import { decodeIndex, encodeIndex, INDEX_VERSION, indexBytes } from "../../src/vectors/ivfSnapshot.ts";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { chunk } from "./helpers.ts";

// Vectors built the way real lore chunks embed (bench/ivf-recall.ts on all-MiniLM-L6-v2): a chunk is a mix of a
// few sentences, a question is near one of them. Its true neighbours are the chunks holding that sentence, spread
// over lists by their other sentences, so they sit in lists whose centroids are far from the question: the case
// where a few big lists probed lost recall. Plain JS arithmetic on seeded vectors: the same on any CPU.
const DIMS = 48;
const ROWS = 6000;
const SENTENCES = 80;
function rng(seed: number) {
  let x = seed;
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296) * 2 - 1;
}
const r = rng(11);
const unit = (v: Float32Array) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};
const SENT = Array.from({ length: SENTENCES }, () => unit(Float32Array.from({ length: DIMS }, () => r())));
const TAGS = ["a", "b", "c", "d", "e"];

function world() {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0 });
  const vecs: Float32Array[] = [];
  for (let d = 0; d < ROWS / 20; d++) {
    const rows = Array.from({ length: 20 }, (_, i) => chunk("p", `d${d}`, i, "", [TAGS[(d + i) % TAGS.length]]));
    const vs = rows.map(() => {
      const v = new Float32Array(DIMS);
      for (let s = 0; s < 3; s++) {
        const w = 0.6 + 0.4 * Math.abs(r());
        const sent = SENT[Math.floor(((r() + 1) / 2) * SENTENCES) % SENTENCES];
        for (let j = 0; j < DIMS; j++) v[j] += w * sent[j];
      }
      for (let j = 0; j < DIMS; j++) v[j] += 0.25 * r();
      return unit(v);
    });
    vecs.push(...vs);
    cache.setDocument(`d${d}`, rows, vs);
  }
  return { cache, vecs };
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

/** recall@4 (tie-aware) of an index over the world at `share` of its lists, and rows scanned a query. */
export async function recallOf(lists?: number, opts?: Parameters<typeof IvfIndex.build>[5], share = 0.1) {
  const { cache, vecs } = world();
  const index = await IvfIndex.build(cache.blocks(), DIMS, ROWS, async () => {}, lists, opts);
  let hits = 0;
  let want = 0;
  let scanned = 0;
  let leaks = 0;
  const Q = 100;
  const qr = rng(5);
  for (let q = 0; q < Q; q++) {
    const tags = new Set(TAGS.filter((_, i) => (q + i) % 2 === 0));
    const query = unit(Float32Array.from(SENT[q % SENTENCES], (x) => x + 0.3 * qr()));
    const p = prepareQuery(query, DIMS, 0, tags);
    p.want = bitsOf(tags);
    const best = new TopN(80);
    const trace = { lists: new Set<number>(), rows: 0 };
    index.search(p, best, share, trace);
    scanned += trace.rows;
    // the candidates re-scored in float32 as the cache does, then the top 4 by exact score
    const got = best.items.map((it) => ({ i: rowNo(it.doc.documentId, it.row), s: 0 }));
    for (const g of got) (g.s = dot(query, vecs[g.i])), (leaks += visibleRow(g.i, tags) ? 0 : 1);
    got.sort((a, b) => b.s - a.s);
    const truth = vecs
      .map((v, i) => ({ i, s: dot(query, v) }))
      .filter(({ i }) => visibleRow(i, tags))
      .sort((a, b) => b.s - a.s);
    if (best.items.length < Math.min(80, truth.length)) leaks++; // fewer candidates than the visible rows allow
    const kth = truth[3].s - 1e-6;
    hits += got.slice(0, 4).filter((g) => g.s >= kth).length;
    want += 4;
  }
  return { recall: hits / want, scanned: scanned / Q / ROWS, leaks, k: index.k };
}

test("rows that mix several topics: recall@4 ≥ 0.9 against the exact scan with ≤ 10 % of the rows scanned, filtering exact", async () => {
  const { recall, scanned, leaks } = await recallOf();
  expect(leaks).toBe(0);
  // measured 0.97 here (1,239 lists, every centroid scored; 0.96 with the lists ranked from the coarse groups and 8
  // sample rows a list); the index as it was (√N = 77 big lists, a row under the nearest list of its
  // nearest coarse group) got 0.76 at the same 10 % of its lists. Seeded plain JS arithmetic: the same figures on
  // any x86-64, so the bound sits between the two with room on both sides.
  expect(recall).toBeGreaterThanOrEqual(0.9);
  expect(scanned).toBeLessThanOrEqual(0.11);
}, 60_000); // 6,000 rows' index trained and 100 exact scans: seconds on a shared 2-core box

const visibleRow = (i: number, tags: ReadonlySet<string>) => tags.has(TAGS[(Math.floor(i / 20) + (i % 20)) % TAGS.length]);

function rowNo(documentId: string, row: number): number {
  return Number(documentId.slice(1)) * 20 + row;
}

/** The tag bits the cache gave (in the order it met them: "a", "b", … as document d0's rows carry them). */
function bitsOf(tags: ReadonlySet<string>): number {
  let m = 0;
  TAGS.forEach((t, i) => tags.has(t) && (m |= 1 << i));
  return m;
}


test("the many small lists hold every row exactly once, and a snapshot's index check takes them back as they are", async () => {
  const { cache } = world();
  const blocks = cache.blocks();
  const index = await IvfIndex.build(blocks, DIMS, ROWS, async () => {});
  expect(index.k).toBe(defaultLists(ROWS));
  const parts = index.parts();
  const seen = new Set<string>();
  parts.lists.docs.forEach((docs, c) => docs.forEach((b, j) => seen.add(`${b.documentId}/${parts.lists.rows[c][j]}`)));
  expect(seen.size).toBe(ROWS);
  expect(index.listSizes().reduce((a, b) => a + b, 0)).toBe(ROWS);
  const encoded = (await encodeIndex(parts, ROWS, blocks, async () => {}))!;
  expect(encoded.meta.v).toBe(INDEX_VERSION);
  const bytes = new Uint8Array(indexBytes(encoded.meta, DIMS, ROWS));
  let at = 0;
  for (const s of encoded.sections) {
    bytes.set(new Uint8Array(s.buffer, s.byteOffset, s.byteLength), at);
    at += s.byteLength;
  }
  const back = decodeIndex(encoded.meta, bytes, blocks, DIMS)!;
  expect(back).not.toBeNull();
  expect(back.lists.rows).toEqual(parts.lists.rows);
  expect(back.lists.docs.map((l) => l.map((b) => b.documentId))).toEqual(parts.lists.docs.map((l) => l.map((b) => b.documentId)));
  // an index of the layout before (version 1) is refused: the cache trains the new one
  expect(decodeIndex({ ...encoded.meta, v: 1 }, bytes, blocks, DIMS)).toBeNull();
}, 60_000);
