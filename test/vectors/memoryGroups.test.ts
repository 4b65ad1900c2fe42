import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";
import { MemoryGroups } from "../../src/vectors/memoryGroups.ts";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { memory, tempDir } from "./helpers.ts";

const tmp = tempDir();
afterAll(tmp.cleanup);
const emb = new HashingEmbedder();
const WORDS = "ale honey sword river bridge toll lantern crypt abbey bell storm ship harbour keeper marsh barley".split(" ");
const text = (i: number) => `${WORDS[i % 16]} ${WORDS[(i * 5 + 3) % 16]} ${WORDS[(i * 7 + 1) % 16]} and the ${WORDS[(i * 3) % 16]}`;

test("memory search from the cached group ranks and scores as LanceDB's own vector search, and never crosses a group", async () => {
  const store = await VectorStore.open(join(tmp.dir, "parity"), emb);
  const rows = [];
  for (let i = 0; i < 300; i++) rows.push(memory(`m${i}`, i % 10 === 9 ? "p2" : "p1", i % 3 ? "garrick" : "elena", i % 2 ? "alice" : "bob", text(i)));
  await store.upsertMemories(rows);
  const g = store.activeGeneration();
  for (const [mind, player] of [["garrick", "alice"], ["elena", "bob"], ["garrick", "bob"]]) {
    for (const query of ["honey ale by the river", "the keeper's lantern in the storm"]) {
      const q = { projectId: "p1", entityMindId: mind, playerId: player, query, k: 8 };
      const [v] = await emb.embed([query]);
      const lance = await g.memories.vectorSearch(v).distanceType("cosine").where(`projectId = 'p1' AND entityMindId = '${mind}' AND playerId = '${player}'`).limit(8).toArray();
      const first = await store.searchMemories(q); // reads the group from LanceDB
      expect(g.memoryGroups.has(MemoryGroups.key("p1", mind, player))).toBe(true);
      const again = await store.searchMemories(q); // from memory
      expect(again).toEqual(first);
      expect(again).toHaveLength(8);
      for (const h of again) expect(h).toMatchObject({ projectId: "p1", entityMindId: mind, playerId: player });
      // the same scores (ties may order differently: compare the score sequence, and each hit's own score)
      expect(again.map((h) => h.score.toFixed(4))).toEqual(lance.map((r) => (1 - Number(r._distance)).toFixed(4)));
    }
  }
  // a write after the group is cached is seen at once; so is a deleted project
  await store.upsertMemories([memory("new", "p1", "garrick", "alice", "honey ale by the river, honey ale")]);
  expect((await store.searchMemories({ projectId: "p1", entityMindId: "garrick", playerId: "alice", query: "honey ale by the river", k: 1 }))[0].id).toBe("new");
  await store.deleteProject("p1");
  expect(await store.searchMemories({ projectId: "p1", entityMindId: "garrick", playerId: "alice", query: "honey ale", k: 5 })).toEqual([]);
  expect(g.memoryGroups.rows).toBe(0);
  await store.close();
});

test("a group read while a write landed is not kept, and past the row budget the least recently searched group goes", () => {
  const groups = new MemoryGroups(4, 5);
  const v = [Float32Array.of(1, 0, 0, 0), Float32Array.of(0, 1, 0, 0), Float32Array.of(0, 0, 1, 0)];
  const rows = (player: string, n: number) => Array.from({ length: n }, (_, i) => memory(`${player}${i}`, "p", "m", player, "x"));
  const since = groups.epoch;
  groups.upserted([memory("other", "p", "m", "zed", "x")], [v[0]]); // a write to any group meanwhile
  groups.install(MemoryGroups.key("p", "m", "a"), rows("a", 2), v, since);
  expect(groups.has(MemoryGroups.key("p", "m", "a"))).toBe(false);
  groups.install(MemoryGroups.key("p", "m", "a"), rows("a", 2), v, groups.epoch);
  groups.install(MemoryGroups.key("p", "m", "b"), rows("b", 3), v, groups.epoch);
  expect(groups.rows).toBe(5);
  groups.search(MemoryGroups.key("p", "m", "a"), v[1], 1); // a is now the most recently used
  groups.install(MemoryGroups.key("p", "m", "c"), rows("c", 2), v, groups.epoch);
  expect(groups.has(MemoryGroups.key("p", "m", "b"))).toBe(false);
  expect(groups.has(MemoryGroups.key("p", "m", "a"))).toBe(true);
  expect(groups.rows).toBe(4);
  expect(groups.search(MemoryGroups.key("p", "m", "a"), v[1], 2)!.map((h) => h.id)).toEqual(["a1", "a0"]);
});
