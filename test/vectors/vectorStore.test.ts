import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { RenamedEmbedder, SmallEmbedder, chunk, memory, tempDir } from "./helpers.ts";

const tmp = tempDir();
afterAll(tmp.cleanup);
let n = 0;
const freshDir = () => join(tmp.dir, `store-${++n}`);

const FILLER = [
  "The road north of Thornhaven passes the old mill and the river ford.",
  "Garrick the innkeeper pours ale and trades gossip with travellers.",
  "The town guard patrols the walls at dusk and opens the gate at dawn.",
  "Merchants bring silver, salt and wool along the caravan road.",
  "The temple bells ring at noon; the priests keep the town records.",
  "Fishermen mend their nets by the harbour before the autumn storms.",
];

describe("VectorStore: lore", () => {
  let store: VectorStore;
  beforeEach(async () => {
    store = await VectorStore.open(freshDir(), new HashingEmbedder());
  });
  afterAll(() => store?.close());

  test("a new store records its embedder", async () => {
    expect(store.embedderId).toBe("hashing-384-v1");
    expect(await store.countChunks()).toBe(0);
  });

  test("replace, search, and every field comes back", async () => {
    await store.replaceDocumentChunks("p1", "d1", [
      chunk("p1", "d1", 0, "The dragon sleeps under the mountain.", ["lore", "it's"], { locationId: "loc_1", documentName: "Dragons" }),
      chunk("p1", "d1", 1, "Garrick pours ale at the Rusty Tankard.", ["tavern"]),
    ]);
    const hits = await store.searchVectors({ projectId: "p1", query: "where does the dragon sleep", tags: ["lore"], n: 5 });
    expect(hits).toHaveLength(1);
    const h = hits[0];
    expect(h).toMatchObject({
      id: "p1:d1:0",
      projectId: "p1",
      documentId: "d1",
      documentName: "Dragons",
      chunkIndex: 0,
      text: "The dragon sleeps under the mountain.",
      tags: ["lore", "it's"],
      locationId: "loc_1",
    });
    const tavern = await store.searchVectors({ projectId: "p1", query: "ale", tags: ["tavern", "nope"], n: 5 });
    expect(tavern.map((x) => x.id)).toEqual(["p1:d1:1"]);
    expect(tavern[0].locationId).toBeNull();
  });

  test("no tags → nothing; other project → nothing; non-intersecting tags → nothing", async () => {
    await store.replaceDocumentChunks("p1", "d1", [chunk("p1", "d1", 0, "Secret tunnel under the mill.", ["secrets"])]);
    expect(await store.searchVectors({ projectId: "p1", query: "tunnel", tags: [], n: 5 })).toEqual([]);
    expect(await store.searchVectors({ projectId: "p2", query: "tunnel", tags: ["secrets"], n: 5 })).toEqual([]);
    expect(await store.searchVectors({ projectId: "p1", query: "tunnel", tags: ["general"], n: 5 })).toEqual([]);
    expect(await store.searchVectors({ projectId: "p1", query: "tunnel", tags: ["secrets"], n: 0 })).toEqual([]);
    expect(await store.searchVectors({ projectId: "p1", query: "tunnel", tags: ["secrets"], n: 5 })).toHaveLength(1);
  });

  test("replacing a document removes its old chunks; other documents are untouched", async () => {
    await store.replaceDocumentChunks("p1", "d1", [0, 1, 2, 3].map((i) => chunk("p1", "d1", i, `old version part ${i}`, ["t"])));
    await store.replaceDocumentChunks("p1", "d2", [chunk("p1", "d2", 0, "another document", ["t"])]);
    await store.replaceDocumentChunks("p1", "d1", [0, 1].map((i) => chunk("p1", "d1", i, `new version part ${i}`, ["t"])));
    expect(await store.countChunks("p1")).toBe(3);
    const hits = await store.searchVectors({ projectId: "p1", query: "version part", tags: ["t"], n: 10 });
    expect(hits.map((h) => h.text).sort()).toEqual(["another document", "new version part 0", "new version part 1"]);
    // Empty replacement = delete.
    await store.replaceDocumentChunks("p1", "d1", []);
    expect(await store.countChunks("p1")).toBe(1);
  });

  test("a reader never sees two versions of a document at once", async () => {
    const version = (v: number) => [0, 1, 2, 3, 4].map((i) => chunk("p1", "d1", i, `version ${v} of the chronicle part ${i}`, ["t"], { id: `v${v}-c${i}` }));
    await store.replaceDocumentChunks("p1", "d1", version(0));
    let writing = true;
    const writer = (async () => {
      for (let v = 1; v <= 12; v++) await store.replaceDocumentChunks("p1", "d1", version(v));
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const hits = await store.searchVectors({ projectId: "p1", query: "chronicle part", tags: ["t"], n: 50 });
      const versions = new Set(hits.map((h) => h.text.split(" ")[1]));
      expect(versions.size).toBe(1);
      expect(hits).toHaveLength(5);
      reads++;
      await Bun.sleep(0); // the vector search resolves in microtasks alone: let the writer's I/O run
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
    expect(await store.countChunks()).toBe(5);
  });

  test("rows must belong to the document being replaced", async () => {
    await expect(store.replaceDocumentChunks("p1", "d1", [chunk("p1", "d2", 0, "x", ["t"])])).rejects.toThrow();
    await expect(store.replaceDocumentChunks("p1", "d1", [chunk("p2", "d1", 0, "x", ["t"])])).rejects.toThrow();
    expect(await store.countChunks()).toBe(0);
  });

  test("deleteDocument and deleteProject", async () => {
    await store.replaceDocumentChunks("p1", "d1", [chunk("p1", "d1", 0, "a", ["t"])]);
    await store.replaceDocumentChunks("p1", "d2", [chunk("p1", "d2", 0, "b", ["t"])]);
    await store.replaceDocumentChunks("p2", "d1", [chunk("p2", "d1", 0, "c", ["t"])]);
    await store.upsertMemories([memory("m1", "p1", "mind", "player", "likes ale"), memory("m2", "p2", "mind", "player", "likes ale")]);
    await store.deleteDocument("p1", "d1");
    expect(await store.countChunks("p1")).toBe(1);
    expect(await store.countChunks("p2")).toBe(1);
    await store.deleteProject("p1");
    expect(await store.countChunks("p1")).toBe(0);
    expect(await store.countChunks()).toBe(1);
    await store.replaceDocumentChunks("p1", "d2", [chunk("p1", "d2", 0, "b again", ["t"])]);
    await store.replaceDocumentChunks("p2", "d1", [chunk("p2", "d1", 0, "c again", ["t"], { id: "c2" })]);
    expect(await store.countChunks("p1")).toBe(1);
    expect(await store.countChunks("p2")).toBe(1);
    const q = { entityMindId: "mind", playerId: "player", query: "ale", k: 5 };
    expect(await store.searchMemories({ projectId: "p1", ...q })).toEqual([]);
    expect(await store.searchMemories({ projectId: "p2", ...q })).toHaveLength(1);
  });

  test("queries of any characters, or no words, do not fail", async () => {
    await store.replaceDocumentChunks("p1", "d1", [chunk("p1", "d1", 0, "plain text about ale", ["t"])]);
    for (const query of ['"unbalanced', "a:b OR (c", "*", "", "   ", "it's", "NOT AND", "\\", "🐉"]) {
      const hits = await store.searchVectors({ projectId: "p1", query, tags: ["t"], n: 3 });
      expect(hits.length).toBeLessThanOrEqual(1);
    }
  });

  test("concurrent writes are serialised", async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, d) =>
        store.replaceDocumentChunks("p1", `d${d}`, [0, 1, 2].map((i) => chunk("p1", `d${d}`, i, `document ${d} part ${i}`, ["t"]))),
      ),
    );
    await Promise.all(Array.from({ length: 10 }, (_, d) => store.deleteDocument("p1", `d${d}`)));
    expect(await store.countChunks("p1")).toBe(30);
  });

  test("a closed store refuses calls and close is idempotent", async () => {
    await store.close();
    await store.close();
    await expect(store.searchVectors({ projectId: "p", query: "q", tags: ["t"], n: 1 })).rejects.toThrow(/closed/);
  });
});

describe("VectorStore: memories", () => {
  let store: VectorStore;
  beforeEach(async () => {
    store = await VectorStore.open(freshDir(), new HashingEmbedder());
  });
  afterAll(() => store?.close());

  const scope = { projectId: "p1", entityMindId: "garrick", playerId: "alice" };

  test("search is scoped to project + mind + player", async () => {
    await store.upsertMemories([
      memory("m1", "p1", "garrick", "alice", "Alice loves honey ale", { importance: 8, topics: ["ale", "taste"] }),
      memory("m2", "p1", "garrick", "alice", "Alice lost her sword in the river"),
      memory("m3", "p1", "garrick", "bob", "Bob loves honey ale"),
      memory("m4", "p1", "elena", "alice", "Alice loves honey ale too"),
      memory("m5", "p2", "garrick", "alice", "Alice loves honey ale, other project"),
    ]);
    const hits = await store.searchMemories({ ...scope, query: "what ale does she like", k: 10 });
    expect(hits.map((h) => h.id)).toEqual(["m1", "m2"]);
    expect(hits[0]).toMatchObject({ ...scope, id: "m1", text: "Alice loves honey ale", importance: 8, topics: ["ale", "taste"], createdAt: "2026-01-15T12:00:00.000Z" });
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
    expect(hits[0].score).toBeLessThanOrEqual(1.0001);
    expect(await store.searchMemories({ ...scope, query: "ale", k: 1 })).toHaveLength(1);
  });

  test("upsert by id replaces; deletes by player, mind and ids", async () => {
    await store.upsertMemories([memory("m1", "p1", "garrick", "alice", "first text")]);
    await store.upsertMemories([memory("m1", "p1", "garrick", "alice", "second text", { importance: 9 })]);
    let hits = await store.searchMemories({ ...scope, query: "text", k: 10 });
    expect(hits.map((h) => [h.text, h.importance])).toEqual([["second text", 9]]);

    await store.upsertMemories([
      memory("m2", "p1", "garrick", "alice", "two"),
      memory("m3", "p1", "garrick", "alice", "three"),
      memory("m4", "p1", "elena", "alice", "four"),
      memory("m5", "p1", "garrick", "bob", "five"),
      memory("m6", "p2", "garrick", "alice", "six"),
    ]);
    await store.deleteMemories({ projectId: "p1", ids: ["m2", "m6"] }); // m6 is in p2: untouched
    await store.deleteMemories({ projectId: "p1", ids: [] }); // no ids: nothing
    hits = await store.searchMemories({ ...scope, query: "x", k: 10 });
    expect(hits.map((h) => h.id).sort()).toEqual(["m1", "m3"]);
    await store.deleteMemories({ projectId: "p1", playerId: "alice", entityMindId: "garrick" });
    expect(await store.searchMemories({ ...scope, query: "x", k: 10 })).toEqual([]);
    expect(await store.searchMemories({ ...scope, entityMindId: "elena", query: "x", k: 10 })).toHaveLength(1);
    await store.deleteMemories({ projectId: "p1", playerId: "bob" });
    expect(await store.searchMemories({ ...scope, playerId: "bob", query: "x", k: 10 })).toEqual([]);
    expect(await store.searchMemories({ ...scope, projectId: "p2", query: "x", k: 10 })).toHaveLength(1);
  });

  test("fresh memories are appended and found, in a loaded group too; a later upsert of one replaces it", async () => {
    // a loaded group (searched once) must take appended rows as it takes merged ones
    await store.upsertMemories([memory("f1", "p1", "garrick", "alice", "the salt barrels at the harbour")]);
    expect((await store.searchMemories({ ...scope, query: "salt", k: 10 })).map((h) => h.id)).toEqual(["f1"]);
    await store.upsertMemories([memory("f2", "p1", "garrick", "alice", "a ship off the north cape"), memory("f3", "p2", "garrick", "alice", "other project")], { fresh: true });
    expect((await store.searchMemories({ ...scope, query: "ship north cape", k: 10 })).map((h) => h.id)).toEqual(["f2", "f1"]);
    await store.upsertMemories([memory("f2", "p1", "garrick", "alice", "the ship sank", { importance: 9 })]);
    const hits = await store.searchMemories({ ...scope, query: "ship", k: 10 });
    expect(hits.map((h) => [h.id, h.text, h.importance])).toEqual([["f2", "the ship sank", 9], ["f1", "the salt barrels at the harbour", 5]]);
    // a fresh store (no group loaded) reads the same rows from LanceDB: one f2, the replaced one
    const dir = freshDir();
    const again = await VectorStore.open(dir, new HashingEmbedder());
    await again.upsertMemories([memory("g1", "p1", "garrick", "alice", "first")], { fresh: true });
    await again.upsertMemories([memory("g1", "p1", "garrick", "alice", "first, replaced")]);
    expect((await again.searchMemories({ ...scope, query: "first", k: 10 })).map((h) => h.text)).toEqual(["first, replaced"]);
    await again.close();
  });

  test("ids and player ids with quotes are data, not SQL", async () => {
    const evil = "alice' OR playerId != '";
    await store.upsertMemories([memory("it's", "p1", "garrick", evil, "quoted player"), memory("m2", "p1", "garrick", "bob", "bob's memory")]);
    expect((await store.searchMemories({ ...scope, playerId: evil, query: "x", k: 10 })).map((h) => h.id)).toEqual(["it's"]);
    expect(await store.searchMemories({ ...scope, query: "x", k: 10 })).toEqual([]);
    await store.deleteMemories({ projectId: "p1", playerId: evil });
    expect(await store.searchMemories({ ...scope, playerId: "bob", query: "x", k: 10 })).toHaveLength(1);
  });
});

describe("VectorStore: persistence and re-embedding", () => {
  test("data survives close and reopen", async () => {
    const dir = freshDir();
    const s1 = await VectorStore.open(dir, new HashingEmbedder());
    await s1.replaceDocumentChunks("p1", "d1", [chunk("p1", "d1", 0, "The dragon sleeps.", ["lore"])]);
    await s1.upsertMemories([memory("m1", "p1", "g", "a", "likes dragons")]);
    await s1.close();
    const s2 = await VectorStore.open(dir, new HashingEmbedder());
    expect(await s2.countChunks()).toBe(1);
    expect((await s2.searchVectors({ projectId: "p1", query: "dragon", tags: ["lore"], n: 3 }))[0].id).toBe("p1:d1:0");
    expect(await s2.searchMemories({ projectId: "p1", entityMindId: "g", playerId: "a", query: "dragons", k: 3 })).toHaveLength(1);
    // Re-indexing a document written before the restart still replaces it (the store reloads which documents it holds).
    await s2.replaceDocumentChunks("p1", "d1", [chunk("p1", "d1", 0, "The dragon woke.", ["lore"], { id: "new-id" })]);
    expect(await s2.countChunks()).toBe(1);
    expect((await s2.searchVectors({ projectId: "p1", query: "dragon", tags: ["lore"], n: 3 })).map((h) => h.text)).toEqual(["The dragon woke."]);
    await s2.close();
  });

  test("reembedAll switches the embedder while searches and writes keep working", async () => {
    const dir = freshDir();
    const store = await VectorStore.open(dir, new HashingEmbedder());
    const docs = 40;
    for (let d = 0; d < docs; d++) {
      await store.replaceDocumentChunks("p1", `d${d}`, [0, 1, 2, 3, 4].map((i) => chunk("p1", `d${d}`, i, `${FILLER[(d + i) % FILLER.length]} Document ${d} part ${i}.`, ["town"])));
    }
    await store.upsertMemories([memory("m1", "p1", "g", "a", "likes ale"), memory("m2", "p1", "g", "a", "hates rain")]);
    await store.replaceDocumentChunks("p1", "key", [chunk("p1", "key", 0, "Quillon hides the Zanthrax.", ["town"])]);

    const next = new RenamedEmbedder("hashing-renamed-v2", 5); // slow: each batch waits 5 ms
    const progress: [number, number][] = [];
    let done = false;
    const reembed = store.reembedAll(next, (d, t) => progress.push([d, t])).finally(() => {
      done = true;
    });
    // Searches during the rebuild answer from the old tables; writes go to both.
    let searches = 0;
    let wrote = false;
    while (!done) {
      const hits = await store.searchVectors({ projectId: "p1", query: "zanthrax", tags: ["town"], n: 3 });
      expect(hits[0].id).toBe("p1:key:0");
      searches++;
      await Bun.sleep(0); // as above: let the re-embed's I/O run
      if (!wrote && progress.length > 1) {
        wrote = true;
        await store.replaceDocumentChunks("p1", "late", [chunk("p1", "late", 0, "The Morrowgate opened during the re-embed.", ["town"])]);
        await store.deleteDocument("p1", "d0");
        await store.upsertMemories([memory("m3", "p1", "g", "a", "owes ten gold")]);
        await store.deleteMemories({ projectId: "p1", ids: ["m2"] });
      }
    }
    await reembed;
    expect(searches).toBeGreaterThan(0);
    expect(wrote).toBe(true);
    expect(store.embedderId).toBe("hashing-renamed-v2");
    expect(progress.at(-1)).toEqual([docs * 5 + 1 + 2, docs * 5 + 1 + 2]);
    expect(await store.countChunks("p1")).toBe((docs - 1) * 5 + 2);
    const late = await store.searchVectors({ projectId: "p1", query: "morrowgate", tags: ["town"], n: 3 });
    expect(late[0].id).toBe("p1:late:0");
    expect(await store.searchVectors({ projectId: "p1", query: "document 0 part", tags: ["town"], n: 100 })).not.toContainEqual(
      expect.objectContaining({ documentId: "d0" }),
    );
    const mems = await store.searchMemories({ projectId: "p1", entityMindId: "g", playerId: "a", query: "gold", k: 10 });
    expect(mems.map((m) => m.id).sort()).toEqual(["m1", "m3"]);
    const calls = next.calls;
    await store.searchVectors({ projectId: "p1", query: "zanthrax", tags: ["town"], n: 3 });
    expect(next.calls).toBe(calls + 1); // queries now go through the new embedder
    await store.close();

    // The swap is durable, and only the new generation's tables remain.
    const meta = JSON.parse(readFileSync(join(dir, "lorehold-vectors.json"), "utf8"));
    expect(meta).toMatchObject({ generation: 2, embedderId: "hashing-renamed-v2", dims: 384 });
    expect(existsSync(join(dir, "chunks_g1.lance"))).toBe(false);
    const reopened = await VectorStore.open(dir, next);
    expect(await reopened.countChunks()).toBe((docs - 1) * 5 + 2);
    await reopened.close();
  });

  test("opening with another embedder: stale until re-embedded (no vector answers meanwhile)", async () => {
    const dir = freshDir();
    const s1 = await VectorStore.open(dir, new HashingEmbedder());
    await s1.replaceDocumentChunks("p1", "d1", [chunk("p1", "d1", 0, "Quillon hides the Zanthrax.", ["t"]), chunk("p1", "d1", 1, "Unrelated words.", ["t"])]);
    await s1.upsertMemories([memory("m1", "p1", "g", "a", "likes ale")]);
    await s1.close();

    const small = new SmallEmbedder();
    const s2 = await VectorStore.open(dir, small);
    expect(s2.embedderId).toBe("hashing-384-v1");
    const stale = await s2.searchVectors({ projectId: "p1", query: "zanthrax", tags: ["t"], n: 3 });
    expect(stale).toEqual([]); // retrieval keeps its SQLite BM25 half meanwhile
    expect(await s2.countChunks("p1")).toBe(2);
    expect(await s2.searchMemories({ projectId: "p1", entityMindId: "g", playerId: "a", query: "ale", k: 3 })).toEqual([]);
    // Written while stale: stored without a vector, re-embedded below.
    await s2.replaceDocumentChunks("p1", "d2", [chunk("p1", "d2", 0, "The Morrowgate is sealed.", ["t"])]);
    expect(await s2.countChunks("p1")).toBe(3);
    expect(await s2.searchVectors({ projectId: "p1", query: "morrowgate", tags: ["t"], n: 3 })).toEqual([]);

    await s2.reembedAll(small);
    expect(s2.embedderId).toBe("small-16-test");
    const after = await s2.searchVectors({ projectId: "p1", query: "morrowgate", tags: ["t"], n: 3 });
    expect(after[0].id).toBe("p1:d2:0");
    expect(await s2.searchMemories({ projectId: "p1", entityMindId: "g", playerId: "a", query: "ale", k: 3 })).toHaveLength(1);
    await s2.close();
  });

  test("a second reembedAll while one runs is refused; a failed one leaves the store as it was", async () => {
    const store = await VectorStore.open(freshDir(), new HashingEmbedder());
    await store.replaceDocumentChunks("p1", "d1", [chunk("p1", "d1", 0, "text", ["t"])]);
    const first = store.reembedAll(new RenamedEmbedder("slow", 20));
    await expect(store.reembedAll(new RenamedEmbedder("other"))).rejects.toThrow(/already/);
    await first;
    const broken = { id: "broken", dims: 384, embed: async () => Promise.reject(new Error("model crashed")) };
    await expect(store.reembedAll(broken)).rejects.toThrow("model crashed");
    expect(store.embedderId).toBe("slow");
    expect(await store.searchVectors({ projectId: "p1", query: "text", tags: ["t"], n: 1 })).toHaveLength(1);
    await store.replaceDocumentChunks("p1", "d2", [chunk("p1", "d2", 0, "more text", ["t"])]);
    expect(await store.countChunks()).toBe(2);
    await store.close();
  });

  test("close during a re-embed stops it; the next open serves the old tables and drops the partial ones", async () => {
    const dir = freshDir();
    const store = await VectorStore.open(dir, new HashingEmbedder());
    for (let d = 0; d < 10; d++) {
      await store.replaceDocumentChunks("p1", `d${d}`, Array.from({ length: 60 }, (_, i) => chunk("p1", `d${d}`, i, `doc ${d} part ${i}`, ["t"])));
    }
    const slow = new RenamedEmbedder("slow", 50);
    const reembed = store.reembedAll(slow);
    // under way (its first embedding call made), however fast or slow the box: a fixed sleep could land before it
    // started on a loaded box, or after it ended on a fast one
    while (slow.calls === 0) await Bun.sleep(1);
    await store.close();
    await expect(reembed).rejects.toThrow();
    const reopened = await VectorStore.open(dir, new HashingEmbedder());
    expect(reopened.embedderId).toBe("hashing-384-v1");
    expect(await reopened.countChunks()).toBe(600);
    expect(existsSync(join(dir, "chunks_g2.lance"))).toBe(false);
    await reopened.close();
  });

  test("same embedder id with different dims is refused", async () => {
    const dir = freshDir();
    const s1 = await VectorStore.open(dir, new HashingEmbedder());
    await s1.close();
    const liar = { id: "hashing-384-v1", dims: 16, embed: async (t: string[]) => t.map(() => new Float32Array(16)) };
    await expect(VectorStore.open(dir, liar)).rejects.toThrow(/dims/);
  });
});
