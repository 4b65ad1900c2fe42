import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { memoryWorld } from "./memoryWorld.ts";
import { storeMemories } from "../../src/npc/memory/storeMemories.ts";
import { retrieveMemories } from "../../src/npc/memory/retrieveMemories.ts";
import { updateMemoryRow } from "../../src/npc/memory/memoryRows.ts";
import { MEMORY_VECTOR_FILL_JOB } from "../../src/npc/memory/memoryVectorFill.ts";
import { readMemoryGroup } from "../../src/npc/memory/memoryVectorStore.ts";
import { decodeVector, encodeVector } from "../../src/npc/memory/memoryVectorBytes.ts";
import type { MemorySide } from "../../src/vectors/memoryIndex.ts";
import type { Embedder } from "../../src/vectors/Embedder.ts";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";

// The memories' vectors copied beside their SQLite rows (memory_vectors): a pair's first search under enhanced
// retrieval reads its group there instead of LanceDB. Real SQLite and LanceDB, hashing embedder. What must hold: the
// same memories ranked the same as from LanceDB, the copy never used once it no longer matches its memory (a crash
// between LanceDB's commit and the copy's write, a text changed without its vector), the copy made again when
// missing, and a group's read holding that pair's memories alone.
setDefaultTimeout(120_000);

let t: TestApp;
let w: ReturnType<typeof memoryWorld>;
const WORDS = "ale honey sword river bridge toll lantern crypt abbey bell storm ship harbour keeper marsh barley".split(" ");
const text = (i: number) => `The player spoke of the ${WORDS[i % 16]} and the ${WORDS[(i * 5 + 3) % 16]} near the ${WORDS[(i * 7 + 1) % 16]}.`;
const QUERIES = ["Any honey ale by the river?", "The keeper's lantern in the storm", "Tell me of the abbey bell", "barley and marsh"];
const PAIRS = () => [
  [w.p1, w.garrick, "ada"],
  [w.p1, w.elena, "ada"],
  [w.p1, w.garrick, "bram"],
  [w.p2, w.other, "ada"],
] as const;

/** Counts the side's answers: `hits` groups read from the copy, `misses` sent to LanceDB. */
function watchSide() {
  const side = t.app.ctx.vectors.memorySide!;
  const seen = { hits: 0, misses: 0, writes: 0 };
  const watched: MemorySide = {
    read: (...a) => {
      const r = side.read(...a);
      if (r) seen.hits++;
      else seen.misses++;
      return r;
    },
    write: (...a) => {
      seen.writes++;
      side.write(...a);
    },
  };
  t.app.ctx.vectors.memorySide = watched;
  return { seen, watched, restore: () => (t.app.ctx.vectors.memorySide = side) };
}

/** Forgets the groups held in memory, as a restart does: the next search of each pair is its first. */
function forgetGroups() {
  const g = t.app.ctx.vectors.activeGeneration();
  for (const p of [w.p1, w.p2]) g.memoryGroups.deleted({ projectId: p });
}

const enhanced = (projectId: string, mindId: string, playerId: string, query: string) =>
  retrieveMemories(t.app.ctx, { projectId, mindId, playerId, query, enhanced: true, limit: 5 });
/**
 * The same memories in the same order, their scores within float16's rounding of the vectors (the copy is float16:
 * a cosine moves by ~1e-4; three decimals hold with room to spare).
 */
function expectSameRanking(copy: { id: string; score: number }[], lance: { id: string; score: number }[]) {
  expect(copy.map((m) => m.id)).toEqual(lance.map((m) => m.id));
  for (let i = 0; i < copy.length; i++) expect(Math.abs(copy[i].score - lance[i].score)).toBeLessThan(1e-3);
}
const copies = () => t.app.db.query<{ n: number }, []>("SELECT count(*) AS n FROM memory_vectors").get()!.n;

beforeAll(async () => {
  t = await createTestApp();
  w = memoryWorld(t.app.ctx);
  let i = 0;
  for (const [projectId, mindId, playerId] of PAIRS()) {
    const drafts = Array.from({ length: 12 }, () => ({ text: text(i++), importance: 1 + (i % 10), topics: i % 4 ? [] : [WORDS[i % 16]] }));
    await storeMemories(t.app.ctx, { projectId, mindId, playerId, drafts });
  }
});
afterAll(() => t.close());

describe("a pair's memory group read from the copy beside its rows", () => {
  test("every memory's vector is copied by its write, with the active embedder", () => {
    const n = t.app.db.query<{ n: number }, []>("SELECT count(*) AS n FROM memories").get()!.n;
    expect(n).toBeGreaterThan(40);
    expect(copies()).toBe(n);
    const embedders = t.app.db.query<{ embedder: string }, []>("SELECT DISTINCT embedder FROM memory_vectors").all();
    expect(embedders).toEqual([{ embedder: t.app.ctx.vectors.embedderId }]);
  });

  test("the same memories ranked the same, with the same scores, as from LanceDB's read of the group", async () => {
    const watch = watchSide();
    try {
      for (const [projectId, mindId, playerId] of PAIRS()) {
        for (const query of QUERIES) {
          forgetGroups();
          t.app.ctx.vectors.memorySide = null; // LanceDB alone, as before the copy
          const lance = await enhanced(projectId, mindId, playerId, query);
          const lanceHits = await t.app.ctx.vectors.searchMemories({ projectId, entityMindId: mindId, playerId, query, k: 12 });
          forgetGroups();
          t.app.ctx.vectors.memorySide = watch.watched;
          const before = watch.seen.hits;
          const copy = await enhanced(projectId, mindId, playerId, query);
          expect(watch.seen.hits).toBe(before + 1); // read from the copy, not LanceDB
          expectSameRanking(copy, lance);
          expect(copy).toHaveLength(5);
          forgetGroups();
          const copyHits = await t.app.ctx.vectors.searchMemories({ projectId, entityMindId: mindId, playerId, query, k: 12 });
          expectSameRanking(copyHits, lanceHits);
          for (const h of copyHits) expect(h).toMatchObject({ projectId, entityMindId: mindId, playerId });
        }
      }
    } finally {
      watch.restore();
    }
  });

  test("a group's read holds that pair's memories and no other's: another player, mind or project", () => {
    const side = t.app.ctx.vectors.memorySide!;
    const id = t.app.ctx.vectors.embedderId;
    const ids = (projectId: string, mindId: string, playerId: string) =>
      t.app.db.query<{ id: string }, [string, string, string]>("SELECT id FROM memories WHERE project_id = ? AND mind_id = ? AND player_id = ? ORDER BY id").all(projectId, mindId, playerId).map((r) => r.id);
    for (const [projectId, mindId, playerId] of PAIRS()) {
      const got = side.read(id, 384, { projectId, entityMindId: mindId, playerId })!;
      expect(got.rows.map((r) => r.id).sort()).toEqual(ids(projectId, mindId, playerId));
      for (const r of got.rows) expect(r).toMatchObject({ projectId, entityMindId: mindId, playerId });
    }
    // the other project's mind asked under this project's id, and a player with none: no group (LanceDB answers)
    expect(side.read(id, 384, { projectId: w.p1, entityMindId: w.other, playerId: "ada" })).toBeNull();
    expect(side.read(id, 384, { projectId: w.p1, entityMindId: w.garrick, playerId: "zed" })).toBeNull();
    // another embedder's copies are never used
    expect(side.read("another-embedder", 384, { projectId: w.p1, entityMindId: w.garrick, playerId: "ada" })).toBeNull();
  });

  test("a crash between LanceDB's commit and the copy's write: the group is read from LanceDB, ranked the same, and copied again", async () => {
    const watch = watchSide();
    try {
      const lost = t.app.ctx.vectors.memorySide!;
      t.app.ctx.vectors.memorySide = { read: lost.read, write: () => { throw new Error("the process died here"); } };
      const [stored] = await storeMemories(t.app.ctx, { projectId: w.p1, mindId: w.garrick, playerId: "ada", drafts: [{ text: "The player hid honey ale under the old bridge.", importance: 8, topics: ["bridge"] }] });
      t.app.ctx.vectors.memorySide = lost;
      expect(t.app.db.query("SELECT 1 FROM memory_vectors WHERE memory_id = ?").get(stored.id)).toBeNull();
      forgetGroups(); // the restart
      const before = { ...watch.seen };
      const first = await enhanced(w.p1, w.garrick, "ada", "honey ale under the bridge");
      expect(watch.seen.misses).toBe(before.misses + 1);
      expect(first[0].id).toBe(stored.id);
      expect(t.app.db.query("SELECT 1 FROM memory_vectors WHERE memory_id = ?").get(stored.id)).not.toBeNull();
      forgetGroups();
      const again = await enhanced(w.p1, w.garrick, "ada", "honey ale under the bridge");
      expect(watch.seen.hits).toBe(before.hits + 1);
      expectSameRanking(again, first);
    } finally {
      watch.restore();
    }
  });

  test("a memory whose text changed without its copy (a merge's SQLite commit, then a crash): the copy is refused", async () => {
    const m = (await enhanced(w.p1, w.elena, "ada", "lantern"))[0];
    updateMemoryRow(t.app.db, { id: m.id, text: `${m.text} Also a storm.`, importance: m.importance, topics: m.topics, updatedAt: m.updatedAt });
    const id = t.app.ctx.vectors.embedderId;
    expect(readMemoryGroup(t.app.db, { projectId: w.p1, mindId: w.elena, playerId: "ada" }, id, 384)).toBeNull();
    const watch = watchSide();
    try {
      forgetGroups();
      await enhanced(w.p1, w.elena, "ada", "lantern");
      expect(watch.seen.misses).toBe(1); // LanceDB, which still holds the old text's vector, as before the copy
    } finally {
      watch.restore();
    }
  });

  test("copies are written in float16; float32 copies written before still read, ranked exactly as LanceDB's", async () => {
    const sizes = t.app.db.query<{ n: number; bytes: number }, []>("SELECT count(*) AS n, length(vector) AS bytes FROM memory_vectors GROUP BY length(vector)").all();
    expect(sizes).toEqual([{ n: copies(), bytes: 384 * 2 }]);
    const [projectId, mindId, playerId] = PAIRS()[2];
    const ids = t.app.db.query<{ id: string }, [string, string, string]>("SELECT id FROM memories WHERE project_id = ? AND mind_id = ? AND player_id = ?").all(projectId, mindId, playerId).map((r) => r.id);
    // the pair's copies rewritten in float32 from LanceDB's own vectors, as the copy was first written
    const g = t.app.ctx.vectors.activeGeneration();
    const raw = (await g.memories.query().where(`playerId = '${playerId}' AND entityMindId = '${mindId}'`).select(["id", "vector"]).toArray()) as { id: string; vector: { toArray(): Float32Array } }[];
    for (const r of raw) t.app.db.query("UPDATE memory_vectors SET vector = ? WHERE memory_id = ?").run(encodeVector(r.vector.toArray(), "f32"), r.id);
    expect(raw.map((r) => r.id).sort()).toEqual([...ids].sort());
    const watch = watchSide();
    try {
      for (const query of QUERIES) {
        forgetGroups();
        t.app.ctx.vectors.memorySide = null;
        const lance = await t.app.ctx.vectors.searchMemories({ projectId, entityMindId: mindId, playerId, query, k: 12 });
        forgetGroups();
        t.app.ctx.vectors.memorySide = watch.watched;
        const before = watch.seen.hits;
        const copy = await t.app.ctx.vectors.searchMemories({ projectId, entityMindId: mindId, playerId, query, k: 12 });
        expect(watch.seen.hits).toBe(before + 1);
        expect(copy.map((h) => [h.id, h.score])).toEqual(lance.map((h) => [h.id, h.score])); // float32: the very scores
      }
    } finally {
      watch.restore();
    }
    // a copy of another length than the embedder's dimensions allow is refused (the group goes to LanceDB)
    t.app.db.query("UPDATE memory_vectors SET vector = ? WHERE memory_id = ?").run(new Uint8Array(384 * 3), ids[0]);
    expect(readMemoryGroup(t.app.db, { projectId, mindId, playerId }, t.app.ctx.vectors.embedderId, 384)).toBeNull();
    // and the pair copied again in the current format by its next LanceDB read
    forgetGroups();
    await t.app.ctx.vectors.searchMemories({ projectId, entityMindId: mindId, playerId, query: QUERIES[0], k: 12 });
    expect(readMemoryGroup(t.app.db, { projectId, mindId, playerId }, t.app.ctx.vectors.embedderId, 384)?.rows).toHaveLength(ids.length);
  });

  test("the copy's formats decode to the vector within their rounding", () => {
    const v = Float32Array.from({ length: 384 }, (_, i) => Math.sin(i * 0.37) * (i % 7 === 0 ? 0 : 0.2));
    for (const [format, bytes, tolerance] of [["f32", 1536, 0], ["f16", 768, 1e-4], ["i8", 388, 2e-3]] as const) {
      const enc = encodeVector(v, format);
      expect(enc.byteLength).toBe(bytes);
      const back = decodeVector(enc, 384)!;
      for (let i = 0; i < 384; i++) expect(Math.abs(back[i] - v[i])).toBeLessThanOrEqual(tolerance);
    }
    expect(decodeVector(new Uint8Array(100), 384)).toBeNull();
  });

  test("a deleted memory takes its copy with it", async () => {
    const victim = t.app.db.query<{ id: string }, [string]>("SELECT id FROM memories WHERE player_id = ? LIMIT 1").get("bram")!.id;
    const before = copies();
    t.app.db.query("DELETE FROM memories WHERE id = ?").run(victim);
    expect(copies()).toBe(before - 1);
  });

  test("the fill job copies every memory's vector from LanceDB when the copy is missing, once", async () => {
    const expected = t.app.db.query<{ id: string; text: string }, []>("SELECT memory_id AS id FROM memory_vectors ORDER BY memory_id").all();
    t.app.db.exec("DELETE FROM memory_vectors; DELETE FROM memory_vector_fills");
    const first = (await t.app.scheduler.trigger(MEMORY_VECTOR_FILL_JOB))!.lastResult as { copied: number; embedder: string };
    expect(first.embedder).toBe(t.app.ctx.vectors.embedderId);
    // every memory LanceDB holds (the changed one's copy is its old text's: kept, and refused on read)
    const after = t.app.db.query<{ id: string }, []>("SELECT memory_id AS id FROM memory_vectors ORDER BY memory_id").all();
    expect(after).toEqual(expected);
    expect(first.copied).toBeGreaterThanOrEqual(after.length);
    const second = (await t.app.scheduler.trigger(MEMORY_VECTOR_FILL_JOB))!.lastResult as { copied: number };
    expect(second.copied).toBe(0);
    // and the groups read from it rank as LanceDB does
    const watch = watchSide();
    try {
      forgetGroups();
      const copy = await enhanced(w.p2, w.other, "ada", QUERIES[0]);
      expect(watch.seen.hits).toBe(1);
      forgetGroups();
      t.app.ctx.vectors.memorySide = null;
      const lance = await enhanced(w.p2, w.other, "ada", QUERIES[0]);
      expectSameRanking(copy, lance);
    } finally {
      watch.restore();
    }
  });
});

describe("after a re-embed", () => {
  test("the old embedder's copies are refused, and the fill job copies the new one's", async () => {
    const base = new HashingEmbedder();
    // another id: its vectors are another embedder's, whatever they hold (reversed, so they differ)
    const next: Embedder = { id: "hashing-384-reversed", dims: 384, embed: async (texts) => (await base.embed(texts)).map((v) => v.slice().reverse()) };
    await t.app.ctx.vectors.reembedAll(next);
    expect(t.app.ctx.vectors.embedderId).toBe(next.id);
    const watch = watchSide();
    try {
      forgetGroups();
      t.app.ctx.vectors.memorySide = null;
      const lance = await enhanced(w.p1, w.garrick, "bram", QUERIES[1]);
      t.app.ctx.vectors.memorySide = watch.watched;
      forgetGroups();
      expect(readMemoryGroup(t.app.db, { projectId: w.p2, mindId: w.other, playerId: "ada" }, next.id, 384)).toBeNull(); // copied by the old embedder
      const filled = (await t.app.scheduler.trigger(MEMORY_VECTOR_FILL_JOB))!.lastResult as { embedder: string };
      expect(filled.embedder).toBe(next.id);
      expect(t.app.db.query("SELECT DISTINCT embedder FROM memory_vectors").all()).toEqual([{ embedder: next.id }]); // each copy overwritten in place
      const before = watch.seen.hits;
      const copy = await enhanced(w.p1, w.garrick, "bram", QUERIES[1]);
      expect(watch.seen.hits).toBe(before + 1);
      expectSameRanking(copy, lance);
    } finally {
      watch.restore();
    }
  });
});
