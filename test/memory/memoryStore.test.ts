import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppContext } from "../../src/app/App.ts";
import { sanitiseDrafts } from "../../src/npc/memory/sanitiseDrafts.ts";
import { parseModelJson } from "../../src/npc/memory/summariseSession.ts";
import { MERGE_SIMILARITY, storeMemories } from "../../src/npc/memory/storeMemories.ts";
import { ENHANCED_WEIGHTS, namesThePlayer, retrieveMemories } from "../../src/npc/memory/retrieveMemories.ts";
import { erasePlayer, erasePlayerRows, exportPlayerData, listMemories } from "../../src/npc/memory/memoryAdmin.ts";
import { pendingTombstones, purgeErasedMemories } from "../../src/npc/memory/tombstones.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { insertSession, memoryWorld, vectorIds } from "./memoryWorld.ts";

const DAY = 86_400_000;
let t: TestApp;
let ctx: AppContext;
let w: ReturnType<typeof memoryWorld>;

beforeAll(async () => {
  t = await createTestApp();
  ctx = t.app.ctx;
  w = memoryWorld(ctx);
});
afterAll(() => t.close());

describe("sanitiseDrafts: model output of any shape becomes valid drafts", () => {
  const cases: Array<[string, unknown, unknown[]]> = [
    ["null", null, []],
    ["a number", 42, []],
    ["no memories key", { facts: [{ text: "x" }] }, []],
    ["memories not an array", { memories: "The player is Ada" }, []],
    ["bare array of strings", ["The player is Ada.", "  "], [{ text: "The player is Ada.", importance: 5, topics: [] }]],
    [
      "importance clamped and rounded, strings parsed, junk defaulted",
      { memories: [{ text: "a1", importance: 99 }, { text: "b2", importance: -3 }, { text: "c3", importance: "7.6" }, { text: "d4", importance: "high" }] },
      [
        { text: "a1", importance: 10, topics: [] },
        { text: "b2", importance: 1, topics: [] },
        { text: "c3", importance: 8, topics: [] },
        { text: "d4", importance: 5, topics: [] },
      ],
    ],
    [
      "texts without a letter or digit, non-string texts and non-objects dropped",
      { memories: [{ text: "..." }, { text: 5 }, 7, null, { importance: 3 }, { text: "  The\nplayer   owes 5 gold. " }] },
      [{ text: "The player owes 5 gold.", importance: 5, topics: [] }],
    ],
    [
      "topics cleaned, lower-cased, deduplicated; a string topic accepted",
      { memories: [{ text: "x1", topics: ["Gold", "gold", " ", 3, "Debts "] }, { text: "x2", topics: "Quest" }] },
      [
        { text: "x1", importance: 5, topics: ["gold", "debts"] },
        { text: "x2", importance: 5, topics: ["quest"] },
      ],
    ],
    [
      "duplicate texts (normalised) merge: importance max, topics union",
      { memories: [{ text: "The player's name is Ada.", importance: 3, topics: ["name"] }, { text: "the PLAYER'S name is ada", importance: 8, topics: ["identity"] }] },
      [{ text: "The player's name is Ada.", importance: 8, topics: ["name", "identity"] }],
    ],
  ];
  for (const [name, raw, expected] of cases) test(name, () => expect(sanitiseDrafts(raw)).toEqual(expected as never));

  test("at most 8 drafts; long texts capped", () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ text: `fact ${i} ${"x".repeat(i === 0 ? 900 : 1)}` }));
    const out = sanitiseDrafts({ memories: many });
    expect(out).toHaveLength(8);
    expect(out[0].text.length).toBe(500);
  });

  test("parseModelJson salvages the complete memories of a cut-off answer", () => {
    expect(parseModelJson('{"memories":[{"text":"a","importance":2,"topics":[]},{"text":"b","importance":3,"topics":["x"]},{"te')).toEqual({
      memories: [
        { text: "a", importance: 2, topics: [] },
        { text: "b", importance: 3, topics: ["x"] },
      ],
    });
    expect(parseModelJson('{"memories":[{"te')).toBeNull();
    expect(parseModelJson("")).toBeNull();
    expect(parseModelJson("]]]}}}")).toBeNull();
  });
});

describe("storeMemories", () => {
  const scope = () => ({ projectId: w.p1, mindId: w.garrick, playerId: "merge-player" });

  test("stores new memories in SQLite and LanceDB", async () => {
    const stored = await storeMemories(ctx, { ...scope(), drafts: [{ text: "The player's name is Ada.", importance: 4, topics: ["name"] }] });
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ text: "The player's name is Ada.", importance: 4, topics: ["name"], entityMindId: w.garrick, playerId: "merge-player" });
    expect(stored[0].id).toMatch(/^mem_/);
    expect(stored[0].createdAt).toBe(stored[0].updatedAt);
    expect(listMemories(ctx, w.p1, "merge-player")).toEqual(stored);
    expect(await vectorIds(ctx, w.p1, w.garrick, "merge-player")).toEqual([stored[0].id]);
  });

  test("a normalised-equal draft merges: newer text, max importance, topic union, updatedAt bumped", async () => {
    const [before] = listMemories(ctx, w.p1, "merge-player");
    t.clock.advance(DAY);
    const stored = await storeMemories(ctx, { ...scope(), drafts: [{ text: "the player's name is ADA", importance: 7, topics: ["identity", "name"] }] });
    expect(stored).toEqual([
      { ...before, text: "the player's name is ADA", importance: 7, topics: ["name", "identity"], updatedAt: t.clock.now().toISOString() },
    ]);
    expect(listMemories(ctx, w.p1, "merge-player")).toEqual(stored);
    // The vector copy follows the new text.
    const hits = await ctx.vectors.searchMemories({ projectId: w.p1, entityMindId: w.garrick, playerId: "merge-player", query: "ADA", k: 5 });
    expect(hits.map((h) => h.text)).toEqual(["the player's name is ADA"]);
  });

  test(`a draft with vector similarity ≥ ${MERGE_SIMILARITY} merges; a distinct fact does not`, async () => {
    const a = "The player is searching for the missing caravan that left Thornhaven for the northern mines last winter.";
    const b = "The player is still searching for the missing caravan that left Thornhaven for the northern mines last winter.";
    const [first] = await storeMemories(ctx, { ...scope(), drafts: [{ text: a, importance: 6, topics: ["caravan"] }] });
    const hit = (await ctx.vectors.searchMemories({ projectId: w.p1, entityMindId: w.garrick, playerId: "merge-player", query: b, k: 1 }))[0];
    expect(hit.id).toBe(first.id);
    expect(hit.score).toBeGreaterThanOrEqual(MERGE_SIMILARITY);
    const [merged] = await storeMemories(ctx, { ...scope(), drafts: [{ text: b, importance: 5, topics: ["quest"] }] });
    expect(merged).toMatchObject({ id: first.id, text: b, importance: 6, topics: ["caravan", "quest"], createdAt: first.createdAt });
    // "name is Bram" is close to "name is ADA" for the hashing embedder (~0.77) but is another fact.
    const [bram] = await storeMemories(ctx, { ...scope(), drafts: [{ text: "The player's name is Bram.", importance: 2, topics: [] }] });
    expect(listMemories(ctx, w.p1, "merge-player").map((m) => m.id)).toContain(bram.id);
    expect(listMemories(ctx, w.p1, "merge-player")).toHaveLength(3);
  });

  test("near-duplicates within one batch merge too", async () => {
    const stored = await storeMemories(ctx, {
      projectId: w.p1,
      mindId: w.garrick,
      playerId: "batch-player",
      drafts: [
        { text: "The player promised to bring Garrick a barrel of dark ale from the southern breweries before the harvest feast.", importance: 3, topics: ["ale"] },
        { text: "The player promised to bring Garrick a barrel of dark ale from the southern breweries before the harvest feast!", importance: 9, topics: [] },
        { text: "The player promised to bring Garrick a barrel of dark ale from the southern breweries before the great harvest feast.", importance: 2, topics: ["promise"] },
        { text: "The player fears spiders.", importance: 4, topics: [] },
      ],
    });
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatchObject({ importance: 9, topics: ["ale", "promise"], text: expect.stringContaining("great harvest") });
    expect(listMemories(ctx, w.p1, "batch-player")).toHaveLength(2);
    expect(await vectorIds(ctx, w.p1, w.garrick, "batch-player")).toEqual(stored.map((m) => m.id).sort());
  });

  test("no drafts, or only junk: nothing stored", async () => {
    expect(await storeMemories(ctx, { ...scope(), playerId: "nobody", drafts: [] })).toEqual([]);
    expect(await storeMemories(ctx, { ...scope(), playerId: "nobody", drafts: [{ text: "  ", importance: 5, topics: [] }] })).toEqual([]);
    expect(listMemories(ctx, w.p1, "nobody")).toEqual([]);
  });

  test("the same text for another player, mind or project never merges across scopes", async () => {
    const text = "The player carries a cursed silver ring.";
    const scopes = [
      { projectId: w.p1, mindId: w.garrick, playerId: "scope-a" },
      { projectId: w.p1, mindId: w.garrick, playerId: "scope-b" },
      { projectId: w.p1, mindId: w.elena, playerId: "scope-a" },
      { projectId: w.p2, mindId: w.other, playerId: "scope-a" },
    ];
    const ids = [];
    for (const s of scopes) ids.push((await storeMemories(ctx, { ...s, drafts: [{ text, importance: 5, topics: [] }] }))[0].id);
    expect(new Set(ids).size).toBe(4);
  });
});

describe("retrieveMemories", () => {
  const player = "retrieve-player";
  const base = () => ({ projectId: w.p1, mindId: w.garrick, playerId: player });
  let ids: Record<string, string> = {};

  beforeAll(async () => {
    const store = async (key: string, text: string, importance: number, topics: string[]) => {
      ids[key] = (await storeMemories(ctx, { ...base(), drafts: [{ text, importance, topics }] }))[0].id;
    };
    await store("oldVital", "The player saved Garrick's daughter from the fire.", 8, ["family"]);
    t.clock.advance(60 * DAY);
    await store("caravan", "The player is looking for the missing caravan of spice merchants.", 3, ["caravan", "quest"]);
    await store("ale", "The player prefers dark porter over pale ale.", 4, ["drink"]);
    await store("cat", "The player has a one-eyed cat called Pepper.", 4, ["pet"]);
    // Noise in other scopes, with words that match the query.
    await storeMemories(ctx, { projectId: w.p1, mindId: w.garrick, playerId: "someone-else", drafts: [{ text: "The player found the missing caravan.", importance: 10, topics: [] }] });
    await storeMemories(ctx, { projectId: w.p1, mindId: w.elena, playerId: player, drafts: [{ text: "The player asked Elena about the missing caravan.", importance: 10, topics: [] }] });
    await storeMemories(ctx, { projectId: w.p2, mindId: w.other, playerId: player, drafts: [{ text: "The player lost the caravan.", importance: 10, topics: [] }] });
  });

  test("default: importance × 0.5^(ageDays/30), ties by id; other scopes never returned", async () => {
    const r = await retrieveMemories(ctx, { ...base(), query: "where is the missing caravan?", enhanced: false });
    const fourTies = [ids.ale, ids.cat].sort();
    expect(r.map((m) => m.id)).toEqual([...fourTies, ids.caravan, ids.oldVital]);
    expect(r.map((m) => m.score)).toEqual([4, 4, 3, 2]); // the vital memory is two half-lives old: 8 × 0.25
    for (const m of r) expect(m).toMatchObject({ entityMindId: w.garrick, playerId: player });
  });

  test("enhanced: the memory relevant to the player's text comes first", async () => {
    const r = await retrieveMemories(ctx, { ...base(), query: "Any news of the missing caravan?", enhanced: true });
    expect(r[0].id).toBe(ids.caravan);
    expect(r).toHaveLength(4);
    for (const m of r) expect(m).toMatchObject({ entityMindId: w.garrick, playerId: player });
    const pet = await retrieveMemories(ctx, { ...base(), query: "How is Pepper the cat?", enhanced: true, limit: 1 });
    expect(pet.map((m) => m.id)).toEqual([ids.cat]);
    const max = ENHANCED_WEIGHTS.similarity + ENHANCED_WEIGHTS.keywords + ENHANCED_WEIGHTS.importance + ENHANCED_WEIGHTS.recency;
    for (const m of r) expect(m.score).toBeLessThanOrEqual(max);
  });

  test("enhanced with no content words: importance and recency decide", async () => {
    const r = await retrieveMemories(ctx, { ...base(), query: "?!", enhanced: true });
    // 0.2·0.4 + 0.15·1 = 0.23 (ale, cat) > 0.2·0.3 + 0.15·1 = 0.21 (caravan) > 0.2·0.8 + 0.15·0.25 = 0.1975 (old, vital)
    expect(r.map((m) => m.id)).toEqual([...[ids.ale, ids.cat].sort(), ids.caravan, ids.oldVital]);
    expect(r.map((m) => Number(m.score.toFixed(4)))).toEqual([0.23, 0.23, 0.21, 0.1975]);
  });

  test("the memory naming the player comes first whatever its score, in both modes; the limit holds", async () => {
    const named = { projectId: w.p1, mindId: w.garrick, playerId: "named-player" };
    const drafts = ["The player's name is Mara Quill.", ...["bridge", "porter", "coast", "room", "caravan", "river"].map((x) => `The player asked about the ${x}.`)];
    for (const [i, text] of drafts.entries()) await storeMemories(ctx, { ...named, drafts: [{ text, importance: i === 0 ? 1 : 9, topics: [] }] });
    for (const enhanced of [false, true])
      for (const query of ["Do you remember me?", "Tell me about the river caravan."]) {
        const r = await retrieveMemories(ctx, { ...named, query, enhanced });
        expect(r).toHaveLength(5);
        expect(r[0].text).toBe("The player's name is Mara Quill.");
        expect(new Set(r.map((m) => m.id)).size).toBe(5);
      }
    const one = await retrieveMemories(ctx, { ...named, query: "the river", enhanced: true, limit: 1 });
    expect(one.map((m) => m.text)).toEqual(["The player's name is Mara Quill."]);
    // the cat's name is not the player's
    expect(namesThePlayer({ text: "The player has a one-eyed cat called Pepper.", topics: ["pet"] })).toBe(false);
    expect(namesThePlayer({ text: "The player goes by Quill at the docks.", topics: ["name"] })).toBe(true);
    expect(namesThePlayer({ text: "The player is called Mara by her friends.", topics: [] })).toBe(true);
  });

  test("limit and deterministic repeat", async () => {
    const a = await retrieveMemories(ctx, { ...base(), query: "caravan", enhanced: true, limit: 2 });
    const b = await retrieveMemories(ctx, { ...base(), query: "caravan", enhanced: true, limit: 2 });
    expect(a).toHaveLength(2);
    expect(a).toEqual(b);
    expect(await retrieveMemories(ctx, { ...base(), query: "caravan", enhanced: true, limit: 0 })).toEqual([]);
    expect(await retrieveMemories(ctx, { ...base(), playerId: "unknown", query: "caravan", enhanced: true })).toEqual([]);
  });

  test("a memory whose SQLite row is gone is never returned, even while its vector remains", async () => {
    ctx.db.query("DELETE FROM memories WHERE id = ?").run(ids.caravan);
    expect(await vectorIds(ctx, w.p1, w.garrick, player)).toContain(ids.caravan);
    for (const enhanced of [true, false]) {
      const r = await retrieveMemories(ctx, { ...base(), query: "missing caravan", enhanced });
      expect(r.map((m) => m.id)).not.toContain(ids.caravan);
    }
    await ctx.vectors.deleteMemories({ projectId: w.p1, ids: [ids.caravan] });
  });
});

describe("export and erase", () => {
  const player = "erase-player";

  test("export holds memories and sessions; erase removes both from SQLite and LanceDB", async () => {
    await storeMemories(ctx, { projectId: w.p1, mindId: w.garrick, playerId: player, drafts: [{ text: "The player is a travelling bard.", importance: 5, topics: ["job"] }] });
    await storeMemories(ctx, { projectId: w.p1, mindId: w.elena, playerId: player, drafts: [{ text: "The player bought a map of the tunnels.", importance: 6, topics: [] }] });
    await storeMemories(ctx, { projectId: w.p2, mindId: w.other, playerId: player, drafts: [{ text: "The player sings badly.", importance: 2, topics: [] }] });
    await storeMemories(ctx, { projectId: w.p1, mindId: w.garrick, playerId: "bystander", drafts: [{ text: "The player is a bystander.", importance: 2, topics: [] }] });
    insertSession(ctx, w.p1, w.garrick, player, [{ role: "user", content: "Hello!" }, { role: "assistant", content: "Welcome." }]);
    insertSession(ctx, w.p1, w.garrick, "bystander", [{ role: "user", content: "Hi" }]);

    const ex = exportPlayerData(ctx, w.p1, player);
    expect(ex.playerId).toBe(player);
    expect(ex.exportedAt).toBe(t.clock.now().toISOString());
    expect(ex.memories.map((m) => m.text).sort()).toEqual(["The player bought a map of the tunnels.", "The player is a travelling bard."]);
    expect(ex.sessions).toEqual([
      { entityMindId: w.garrick, messages: [{ role: "user", content: "Hello!" }, { role: "assistant", content: "Welcome." }], updatedAt: expect.any(String) },
    ]);

    expect(await erasePlayer(ctx, w.p1, player)).toEqual({ memoriesDeleted: 2, sessionsDeleted: 1, stateKeysDeleted: 0, trustDeleted: 0 });
    expect(exportPlayerData(ctx, w.p1, player)).toMatchObject({ memories: [], sessions: [] });
    expect(await vectorIds(ctx, w.p1, w.garrick, player)).toEqual([]);
    expect(await vectorIds(ctx, w.p1, w.elena, player)).toEqual([]);
    expect(pendingTombstones(ctx.db)).toBe(0);
    // Other players and other projects keep theirs.
    expect(listMemories(ctx, w.p1, "bystander")).toHaveLength(1);
    expect(exportPlayerData(ctx, w.p1, "bystander").sessions).toHaveLength(1);
    expect(listMemories(ctx, w.p2, player)).toHaveLength(1);
    expect(await vectorIds(ctx, w.p2, w.other, player)).toHaveLength(1);
    // Erasing again is a no-op.
    expect(await erasePlayer(ctx, w.p1, player)).toEqual({ memoriesDeleted: 0, sessionsDeleted: 0, stateKeysDeleted: 0, trustDeleted: 0 });
  });

  test("an erase of the rows alone (the CLI) leaves tombstones; the purge job removes the vectors", async () => {
    const [m] = await storeMemories(ctx, { projectId: w.p1, mindId: w.garrick, playerId: "cli-erase", drafts: [{ text: "The player wears a red hood.", importance: 5, topics: [] }] });
    const r = erasePlayerRows(ctx, w.p1, "cli-erase");
    expect(r).toMatchObject({ memoriesDeleted: 1, sessionsDeleted: 0, memoryIds: [m.id] });
    expect(await vectorIds(ctx, w.p1, w.garrick, "cli-erase")).toEqual([m.id]);
    expect(await retrieveMemories(ctx, { projectId: w.p1, mindId: w.garrick, playerId: "cli-erase", query: "red hood", enhanced: true })).toEqual([]);
    expect(pendingTombstones(ctx.db)).toBe(1);
    expect(await purgeErasedMemories(ctx)).toEqual({ purged: 1 });
    expect(await vectorIds(ctx, w.p1, w.garrick, "cli-erase")).toEqual([]);
    expect(pendingTombstones(ctx.db)).toBe(0);
    expect(await purgeErasedMemories(ctx)).toEqual({ purged: 0 });
  });
});
