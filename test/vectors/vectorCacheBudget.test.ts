import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { chunk, tempDir } from "./helpers.ts";

const tmp = tempDir();
afterAll(tmp.cleanup);
const emb = new HashingEmbedder();

/** A seeded generator: the same vectors on every run and CPU (the arithmetic below is plain IEEE doubles). */
function rng(seed: number) {
  let x = seed;
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296) * 2 - 1;
}

test("int8 scores stay within 0.01 of the exact cosine, for dense and sparse vectors alike", () => {
  const dims = 384;
  const r = rng(11);
  const cache = new ProjectVectorCache(dims, "p");
  const vectors: Float32Array[] = [];
  for (let d = 0; d < 20; d++) {
    const rows = Array.from({ length: 50 }, (_, i) => chunk("p", `d${d}`, i, "", ["t"]));
    // every other document sparse (a hashing embedder's short text), the rest dense (a neural embedder's)
    const vs = rows.map(() => Float32Array.from({ length: dims }, () => (d % 2 && Math.abs(r()) < 0.9 ? 0 : r())));
    vectors.push(...vs);
    cache.setDocument(`d${d}`, rows, vs);
  }
  const unit = (v: Float32Array) => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  for (let q = 0; q < 20; q++) {
    const query = Float32Array.from({ length: dims }, () => r());
    const hits = cache.search(query, new Set(["t"]), 1000);
    expect(hits).toHaveLength(1000);
    const uq = unit(query);
    for (const h of hits) {
      const v = unit(vectors[Number(h.documentId.slice(1)) * 50 + h.chunkIndex]);
      const exact = v.reduce((s, x, i) => s + x * uq[i], 0);
      // per-row scale: each code errs by at most half a step (max|v| / 254); over 384 dims the dot errs far less than 0.01
      expect(Math.abs(h.score - exact)).toBeLessThan(0.01);
    }
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
  }
});

test("the cache keeps no text, and its memory estimate counts what it holds", () => {
  const cache = new ProjectVectorCache(384, "p", { rescore: 0 });
  const rows = Array.from({ length: 100 }, (_, i) => chunk("p", "d", i, "x".repeat(2000), ["t"]));
  cache.setDocument("d", rows, rows.map(() => Float32Array.from({ length: 384 }, (_, i) => i % 7)));
  expect(cache.bytes / 100).toBeLessThan(600); // 384 B of codes and ~100 B of bookkeeping, never the 2,000 B of text
  expect(cache.bytes / 100).toBeGreaterThan(384);
  expect(Object.keys(cache.search(Float32Array.of(1), new Set(["t"]), 1)[0])).not.toContain("text");
  cache.deleteDocument("d");
  expect(cache.bytes).toBe(0);
  // with re-scoring, rows written since the last snapshot hold their own float32 vectors, and the estimate says so
  const rescoring = new ProjectVectorCache(384, "p");
  rescoring.setDocument("d", rows, rows.map(() => Float32Array.from({ length: 384 }, (_, i) => i % 7)));
  expect(rescoring.bytes / 100).toBeGreaterThan(384 + 384 * 4);
});

test("past vectorCacheMb the least recently searched project is evicted, and it answers the same once reloaded", async () => {
  // ~40 chunks of ~500 B per project: a budget of 0.03 MB holds one project, not two
  const store = await VectorStore.open(join(tmp.dir, "budget"), emb, { vectorCacheMb: 0.03 });
  const words = "ferry toll abbey crypt bell lantern smuggler tunnel cellar harbour ship storm keeper lighthouse".split(" ");
  for (const p of ["p1", "p2", "p3"]) {
    const rows = Array.from({ length: 40 }, (_, i) => chunk(p, "d", i, `${p} ${words[i % words.length]} ${words[(i * 5) % words.length]} part ${i}`, ["t"]));
    await store.replaceDocumentChunks(p, "d", rows);
  }
  const ask = (p: string) => store.searchVectors({ projectId: p, query: "lantern smuggler", tags: ["t"], n: 5 });
  const first = await ask("p1");
  expect(first).toHaveLength(5);
  expect(store.cacheUsage().projects).toBe(1);
  await ask("p2");
  await ask("p3");
  await store.snapshotsIdle(); // a load's float32 copies give way to views on its snapshot file once it is written
  const usage = store.cacheUsage();
  expect(usage.projects).toBe(1); // p1 and p2 were evicted in turn
  expect(usage.bytes).toBeLessThanOrEqual(0.03 * 1024 * 1024);
  // a write to an evicted project is not lost: the reload reads LanceDB, the store of record
  await store.replaceDocumentChunks("p1", "e", [chunk("p1", "e", 0, "lantern smuggler lantern smuggler", ["t"])]);
  const again = await ask("p1");
  expect(again[0].documentId).toBe("e");
  expect(again.slice(1).map((h) => h.id)).toEqual(first.slice(0, 4).map((h) => h.id));
  expect(again.every((h) => h.projectId === "p1")).toBe(true);
  // warm loads while the budget allows: one project, not three
  await store.warm(["p2", "p3"]);
  expect(store.cacheUsage().projects).toBe(1);
  await store.close();
});
