import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { chunk, tempDir } from "./helpers.ts";

const tmp = tempDir();
afterAll(tmp.cleanup);
const emb = new HashingEmbedder();

const TEXTS = [
  "The ferryman counts copper tolls at the river crossing.",
  "A shrine of grey stone stands where the roads cross.",
  "The abbey bells ring at noon for the harvest.",
  "Smugglers row lanterns across the marsh at night.",
  "The miller grinds barley and gossips about the weather.",
  "Dragons were last seen above the northern peaks.",
];

describe("the in-memory vector cache", () => {
  test("cosine ranking matches LanceDB's own brute-force vector search, within the tag filter", async () => {
    const dir = join(tmp.dir, "parity");
    const store = await VectorStore.open(dir, emb);
    const rows = TEXTS.map((t, i) => chunk("p1", `d${i}`, 0, t, [i % 2 ? "odd" : "even"]));
    for (const r of rows) await store.replaceDocumentChunks("p1", r.documentId, [r]);
    await store.warm(["p1"]);
    const db = await lancedb.connect(dir);
    const table = await db.openTable((await db.tableNames()).find((n) => n.startsWith("chunks_"))!);
    for (const q of ["river toll ferry", "night lanterns marsh", "bells of the abbey", "dragon peaks"]) {
      const v = (await emb.embed([q]))[0];
      const cache = (store as any).active.vectorCache.get("p1") as ProjectVectorCache;
      const mine = cache.search(v, new Set(["odd", "even"]), 6).map((r) => r.id);
      const theirs = (await table.vectorSearch(v).distanceType("cosine").select(["id"]).limit(6).toArray()).map((r: any) => r.id);
      expect(mine).toEqual(theirs);
      const odd = cache.search(v, new Set(["odd"]), 6);
      expect(odd.every((r) => r.tags.includes("odd"))).toBe(true);
      expect(odd).toHaveLength(3);
    }
    await store.close();
  });

  test("writes after the cache is loaded are seen at once: replace, delete, delete project; reopen reloads", async () => {
    const dir = join(tmp.dir, "writes");
    let store = await VectorStore.open(dir, emb);
    await store.replaceDocumentChunks("p1", "a", [chunk("p1", "a", 0, "The lighthouse keeper knows the tides.", ["sea"])]);
    const search = (s: VectorStore, q: string) => s.searchVectors({ projectId: "p1", query: q, tags: ["sea"], n: 3 });
    expect((await search(store, "lighthouse tides"))[0].documentId).toBe("a"); // loads the cache
    await store.replaceDocumentChunks("p1", "b", [chunk("p1", "b", 0, "Whales sing under the winter ice.", ["sea"])]);
    expect((await search(store, "whales winter ice"))[0].documentId).toBe("b");
    await store.replaceDocumentChunks("p1", "a", [chunk("p1", "a", 0, "The keeper has left; the lamp is dark.", ["sea"])]);
    const hits = await search(store, "lighthouse keeper lamp");
    expect(hits.filter((h) => h.documentId === "a")).toHaveLength(1);
    expect(hits.find((h) => h.documentId === "a")!.text).toBe("The keeper has left; the lamp is dark.");
    await store.deleteDocument("p1", "b");
    expect((await search(store, "whales winter ice")).map((h) => h.documentId)).not.toContain("b");
    await store.close();
    store = await VectorStore.open(dir, emb);
    expect((await search(store, "keeper lamp dark"))[0].documentId).toBe("a");
    await store.deleteProject("p1");
    expect(await search(store, "keeper lamp dark")).toEqual([]);
    await store.close();
  });

  test("a dense query (not sparse) ranks the same way", () => {
    const cache = new ProjectVectorCache(4, "p");
    cache.setDocument("d", [chunk("p", "d", 0, "x", ["t"]), chunk("p", "d", 1, "y", ["t"])], [Float32Array.of(1, 0, 0, 0), Float32Array.of(0.5, 0.5, 0.5, 0.5)]);
    expect(cache.search(Float32Array.of(0.4, 0.6, 0.5, 0.5), new Set(["t"]), 2).map((r) => r.chunkIndex)).toEqual([1, 0]);
    expect(cache.search(Float32Array.of(1, 0, 0, 0), new Set(["t"]), 1).map((r) => r.chunkIndex)).toEqual([0]);
    expect(cache.search(Float32Array.of(1, 0, 0, 0), new Set(["other"]), 2)).toEqual([]);
    expect(cache.size).toBe(2);
  });
});

test("tag filtering holds past 32 distinct tags (the bitmask's overflow path)", () => {
  const cache = new ProjectVectorCache(4, "p");
  const v = Float32Array.of(1, 0, 0, 0);
  for (let i = 0; i < 40; i++) cache.setDocument(`d${i}`, [chunk("p", `d${i}`, 0, `t${i}`, [`tag${i}`])], [v]);
  for (const i of [0, 31, 32, 39]) {
    const hits = cache.search(v, new Set([`tag${i}`]), 10);
    expect(hits.map((h) => h.documentId)).toEqual([`d${i}`]);
  }
  expect(cache.search(v, new Set(["tag5", "tag35"]), 10).map((h) => h.documentId).sort()).toEqual(["d35", "d5"]);
  expect(cache.search(v, new Set(["nope"]), 10)).toEqual([]);
});
