/**
 * Property test of the security rule (DESIGN.md "Knowledge scoping"): whatever
 * the projects, tags (quote-bearing ones included) and queries, searchLore never
 * returns a chunk of another project or one whose tags miss the requested set,
 * and the LanceDB filter alone (without the TypeScript post-filter) selects
 * exactly the visible chunks.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as lancedb from "@lancedb/lancedb";
import { join } from "node:path";
import { loreFilter } from "../../src/vectors/filters.ts";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { type ChunkRow, VectorStore } from "../../src/vectors/VectorStore.ts";
import { tempDir } from "./helpers.ts";
import { prng } from "../support/prng.ts";

/** mulberry32: the same "random" world on every run; change SEED to explore another. */
const SEED = 20260115;
const rand = prng(SEED);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
const sample = <T>(xs: readonly T[], n: number) => [...xs].sort(() => rand() - 0.5).slice(0, n);

const PROJECTS = ["proj_a", "proj_b", "proj_'c", 'proj_"d'];
const TAGS = [
  "general",
  "history",
  "it's",
  "''",
  "a','b",
  "x') OR ('1'='1",
  'say "hi"',
  "back\\slash",
  "\\'",
  "a)b",
  "50%",
  "_",
  "龍",
  "émoji 🐉",
  "tag with spaces",
  "general ", // differs from "general" only by a trailing space
];
const WORDS = "dragon mountain ale inn king queen sword river forest castle thief guard gold silver caravan road tunnel smuggler crypt amulet chapel harbour".split(" ");

const tmp = tempDir();
let store: VectorStore;
const chunks: ChunkRow[] = [];

beforeAll(async () => {
  store = await VectorStore.open(join(tmp.dir, "store"), new HashingEmbedder());
  for (let d = 0; d < 30; d++) {
    const projectId = pick(PROJECTS);
    const documentId = `doc_${d}${d % 5 === 0 ? "'" : ""}`;
    const rows: ChunkRow[] = Array.from({ length: 10 }, (_, i) => ({
      id: `${projectId}/${documentId}/${i}`,
      projectId,
      documentId,
      documentName: `Document ${d}`,
      chunkIndex: i,
      text: Array.from({ length: 12 + Math.floor(rand() * 30) }, () => pick(WORDS)).join(" "),
      // Mostly 1–3 tags; a few chunks have none and must never be visible.
      tags: rand() < 0.05 ? [] : sample(TAGS, 1 + Math.floor(rand() * 3)),
      locationId: null,
    }));
    await store.replaceDocumentChunks(projectId, documentId, rows);
    chunks.push(...rows);
  }
  // Half the rows indexed, half only in unindexed fragments: both paths are exercised.
  await store.optimizeNow();
  for (let d = 30; d < 33; d++) {
    const projectId = pick(PROJECTS);
    const rows: ChunkRow[] = Array.from({ length: 10 }, (_, i) => ({
      id: `${projectId}/late_${d}/${i}`,
      projectId,
      documentId: `late_${d}`,
      documentName: `Late ${d}`,
      chunkIndex: i,
      text: Array.from({ length: 20 }, () => pick(WORDS)).join(" "),
      tags: sample(TAGS, 1 + Math.floor(rand() * 2)),
      locationId: null,
    }));
    await store.replaceDocumentChunks(projectId, `late_${d}`, rows);
    chunks.push(...rows);
  }
});

afterAll(async () => {
  await store?.close();
  tmp.cleanup();
});

test("the world is big enough to mean something", async () => {
  expect(chunks.length).toBe(330);
  expect(await store.countChunks()).toBe(330);
});

test("searchLore never returns a chunk outside the requested project and tags", async () => {
  let nonEmpty = 0;
  for (let q = 0; q < 50; q++) {
    const projectId = pick(PROJECTS);
    const tags = sample([...TAGS, "unknown-tag", "GENERAL"], Math.floor(rand() * 5)); // 0–4 tags, sometimes unknown ones
    const k = 1 + Math.floor(rand() * 60);
    const query = rand() < 0.1 ? "" : Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(WORDS)).join(" ");
    const hits = await store.searchLore({ projectId, query, tags, k });

    const wanted = new Set(tags);
    const visible = chunks.filter((c) => c.projectId === projectId && c.tags.some((t) => wanted.has(t)));
    for (const h of hits) {
      expect(h.projectId).toBe(projectId);
      expect(h.tags.some((t) => wanted.has(t))).toBe(true);
    }
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
    // Not over-restrictive either: the vector half alone covers every visible chunk up to k.
    expect(hits.length).toBe(Math.min(k, visible.length));
    if (hits.length) nonEmpty++;
  }
  expect(nonEmpty).toBeGreaterThan(20);
});

test("the vector half the product runs (searchVectors over the in-memory cache) never leaves the project and tags either", async () => {
  let nonEmpty = 0;
  for (let q = 0; q < 50; q++) {
    const projectId = pick(PROJECTS);
    const tags = sample([...TAGS, "unknown-tag", "GENERAL"], Math.floor(rand() * 5));
    const n = 1 + Math.floor(rand() * 60);
    const query = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(WORDS)).join(" ");
    const hits = await store.searchVectors({ projectId, query, tags, n });
    const wanted = new Set(tags);
    const visible = chunks.filter((c) => c.projectId === projectId && c.tags.some((t) => wanted.has(t)));
    for (const h of hits) {
      expect(h.projectId).toBe(projectId);
      expect(h.tags.some((t) => wanted.has(t))).toBe(true);
    }
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
    expect(hits.length).toBe(Math.min(n, visible.length));
    if (hits.length) nonEmpty++;
  }
  expect(nonEmpty).toBeGreaterThan(20);
});

test("the LanceDB filter alone selects exactly the visible chunks (post-filter not needed)", async () => {
  await store.close();
  const db = await lancedb.connect(join(tmp.dir, "store"));
  const table = await db.openTable("chunks_g1");
  for (let q = 0; q < 50; q++) {
    const projectId = pick(PROJECTS);
    const tags = sample([...TAGS, "unknown-tag"], 1 + Math.floor(rand() * 4));
    const rows = await table.query().where(loreFilter(projectId, tags)).select(["id"]).toArray();
    const wanted = new Set(tags);
    const expected = chunks.filter((c) => c.projectId === projectId && c.tags.some((t) => wanted.has(t))).map((c) => c.id);
    expect(rows.map((r) => String(r.id)).sort()).toEqual(expected.sort());
  }
  table.close();
  db.close();
  store = await VectorStore.open(join(tmp.dir, "store"), new HashingEmbedder());
});
