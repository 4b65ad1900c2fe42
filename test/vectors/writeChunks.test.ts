import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { chunk, tempDir } from "./helpers.ts";

const tmp = tempDir();
afterAll(tmp.cleanup);
const emb = new HashingEmbedder();
const rowsOf = (p: string, d: string, n: number, word: string, tags = ["t"]) => Array.from({ length: n }, (_, i) => chunk(p, d, i, `${word} ${word} part ${i} of ${d}`, tags));
const ask = (store: VectorStore, query: string, n = 50, projectId = "p") => store.searchVectorHits({ projectId, query, tags: ["t", "u"], n });

test("several documents in one write: all searchable at once, replaced and deleted in one write, the cache in step", async () => {
  const store = await VectorStore.open(join(tmp.dir, "batch"), emb);
  await store.replaceDocumentChunks("p", "seed", rowsOf("p", "seed", 1, "seed"));
  await ask(store, "seed"); // the cache is loaded: the batch below must reach it too
  await store.replaceDocumentsChunks("p", [
    { documentId: "a", rows: rowsOf("p", "a", 3, "lantern") },
    { documentId: "b", rows: rowsOf("p", "b", 2, "harbour") },
    { documentId: "c", rows: rowsOf("p", "c", 4, "abbey", ["u"]) },
  ]);
  expect(await store.countChunks("p")).toBe(10);
  expect((await ask(store, "lantern", 3)).map((h) => h.documentId)).toEqual(["a", "a", "a"]);
  // a replaced document's old chunks are gone; an empty one is deleted; an untouched one stays
  await store.replaceDocumentsChunks("p", [
    { documentId: "a", rows: rowsOf("p", "a", 1, "crypt") },
    { documentId: "b", rows: [] },
    { documentId: "d", rows: rowsOf("p", "d", 2, "marsh") },
  ]);
  expect(await store.countChunks("p")).toBe(1 + 1 + 4 + 2);
  const all = await ask(store, "crypt marsh abbey seed lantern harbour");
  expect(all.map((h) => h.documentId).sort()).toEqual(["a", "c", "c", "c", "c", "d", "d", "seed"]);
  expect(all.some((h) => h.documentId === "b")).toBe(false);
  await store.close();
  // and LanceDB agrees with the cache after a reopen (from the snapshot, or the table)
  const again = await VectorStore.open(join(tmp.dir, "batch"), emb);
  expect((await ask(again, "crypt marsh abbey seed lantern harbour")).map((h) => h.id).sort()).toEqual(all.map((h) => h.id).sort());
  await again.close();
});

test("a batch with a row of another project or document, or a document twice, writes nothing", async () => {
  const store = await VectorStore.open(join(tmp.dir, "refuse"), emb);
  const bad = [
    [{ documentId: "a", rows: rowsOf("p", "a", 2, "x") }, { documentId: "b", rows: rowsOf("q", "b", 1, "x") }],
    [{ documentId: "a", rows: rowsOf("p", "a", 2, "x") }, { documentId: "b", rows: rowsOf("p", "a", 1, "x") }],
    [{ documentId: "a", rows: rowsOf("p", "a", 2, "x") }, { documentId: "a", rows: rowsOf("p", "a", 1, "y") }],
  ];
  for (const docs of bad) await expect(store.replaceDocumentsChunks("p", docs)).rejects.toThrow();
  expect(await store.countChunks()).toBe(0);
  await store.close();
});
