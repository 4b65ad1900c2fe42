import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { insertEvent } from "../../src/events/eventStore.ts";
import { rankKnown, rankWorldMemories, WORLD_MEMORY_CANDIDATES } from "../../src/events/worldMemories.ts";
import { eventWords, insertWorldMemory, knownEvents } from "../../src/events/worldMemoryStore.ts";
import { fillWorldMemoryWords } from "../../src/events/worldMemoryWords.ts";
import type { ChatMessage } from "../../src/llm/types.ts";

/**
 * A world memory keeps its event's words (migration 037) and a turn ranks its candidates from the covering indexes:
 * the ranking must be rankKnown's over knownEvents' full rows (which read each event's text), whether the words are
 * filled, not yet filled (a world from before the migration) or cleared by a change of the event's text; the fill
 * job resumes where it stopped; and a turn's prompt holds only the mind's own world memories.
 */
setDefaultTimeout(300_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let t: TestApp;
let w: World;
const prompts: ChatMessage[][] = [];

const VOCAB = ["city", "cities", "harbour", "Harbours", "lantern", "lanterns", "salt", "ferry", "ferries", "gate", "the", "of", "bus", "buses", "glass", "mill", "north", "guard", "42", "Café", "cafe", "Straße", "sky", "skies", "it's"];
let seed = 777;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const phrase = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]).join(rnd() < 0.3 ? ", " : " ");
const EVENTS = 420; // more than a mind's WORLD_MEMORY_CANDIDATES of either order, so the two scans differ

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Wordhaven", { index: "none" });
  const now = t.app.ctx.clock.now().getTime();
  for (let i = 0; i < EVENTS; i++) {
    const at = new Date(now - Math.floor(rnd() * 400 * 3_600_000)).toISOString();
    const id = `evt_words_${i}`;
    const importance = 1 + Math.floor(rnd() * 10);
    insertEvent(t.app.db, { id, project_id: w.projectId, type: ["trade", "fight", "rumour"][i % 3], description: phrase(2 + Math.floor(rnd() * 9)), location_id: null, player_id: null, importance, game_time: null, secret: 0, public: 0, witnesses: "[]", created_at: at });
    for (const mind of [w.minds.garrick, w.minds.elena]) {
      insertWorldMemory(t.app.db, { id: `wm_words_${i}_${mind}`, project_id: w.projectId, mind_id: mind, event_id: id, player_id: null, memory_id: null, importance, hop: 0, told_by: null, told_by_name: null, known_at: at, spread_at: null, created_at: at });
    }
  }
  const gen = t.app.ctx.generation!;
  const generate = gen.generate.bind(gen);
  gen.generate = (req) => {
    prompts.push(req.messages);
    return generate(req);
  };
}, 120_000);
afterAll(() => t.close());

const unfilled = () => t.app.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM world_memories WHERE project_id = ? AND words IS NULL AND player_id IS NULL").get(w.projectId)!.n;

/** Both minds, 60 random queries each, the kept 3 and the kept 40: ids and scores as rankKnown gives them. */
function expectSameRanking() {
  const now = t.app.ctx.clock.now();
  let relevant = 0;
  for (const mindId of [w.minds.garrick, w.minds.elena]) {
    const rows = knownEvents(t.app.db, w.projectId, mindId, now.toISOString(), WORLD_MEMORY_CANDIDATES);
    expect(rows.length).toBeGreaterThan(WORLD_MEMORY_CANDIDATES);
    for (let q = 0; q < 60; q++) {
      const query = q === 0 ? "" : phrase(1 + Math.floor(rnd() * 4));
      for (const limit of [3, 40]) {
        const got = rankWorldMemories(t.app.ctx, { projectId: w.projectId, mindId, query, limit });
        const want = rankKnown(rows, query, now, limit);
        expect(got.map((r) => [r.id, r.score, r.description])).toEqual(want.map((r) => [r.id, r.score, r.description]));
        if (want[0].id !== rankKnown(rows, "", now, 1)[0].id) relevant++;
      }
    }
  }
  // the queries' words changed the best often enough that relevance was tested, not recency and importance alone
  expect(relevant).toBeGreaterThan(20);
}

describe("world memories: words kept on the row", () => {
  test("written with their event's words; ranked as from the events' text", () => {
    expect(unfilled()).toBe(0);
    const row = t.app.db.query<{ words: string; type: string; description: string }, []>("SELECT k.words, e.type, e.description FROM world_memories k JOIN events e ON e.id = k.event_id WHERE k.id = 'wm_words_7_" + w.minds.garrick + "'").get()!;
    expect(row.words).toBe(eventWords(row.type, row.description));
    expectSameRanking();
  });

  test("a world from before the words (half of them unfilled) ranks the same; the fill job resumes where it stopped", async () => {
    t.app.db.exec(`UPDATE world_memories SET words = NULL WHERE project_id = '${w.projectId}' AND rowid % 2 = 0`);
    const left = unfilled();
    expect(left).toBeGreaterThan(400);
    expectSameRanking();
    // stopped after its first slice, then run to the end: every row filled, each with its event's words
    const stop = new AbortController();
    const first = fillWorldMemoryWords(t.app.ctx);
    const aborted = fillWorldMemoryWords(t.app.ctx, stop.signal);
    stop.abort();
    const [a, b] = await Promise.all([first, aborted]);
    expect(b.filled).toBeLessThan(left);
    expect(a.filled + b.filled).toBeGreaterThanOrEqual(left);
    expect(unfilled()).toBe(0);
    expect((await fillWorldMemoryWords(t.app.ctx)).filled).toBe(0);
    const wrong = t.app.db
      .query<{ words: string; type: string; description: string }, [string]>("SELECT k.words, e.type, e.description FROM world_memories k JOIN events e ON e.id = k.event_id WHERE k.project_id = ?")
      .all(w.projectId)
      .filter((r) => r.words !== eventWords(r.type, r.description));
    expect(wrong).toEqual([]);
    expectSameRanking();
  });

  test("an event whose text changes is never ranked by its old words", () => {
    const now = t.app.ctx.clock.now().toISOString();
    t.app.db.query("UPDATE events SET description = ? WHERE id = ?").run("The zeppelin moored above the quarry", "evt_words_11");
    const words = t.app.db.query<{ words: string | null }, []>("SELECT words FROM world_memories WHERE event_id = 'evt_words_11'").all();
    expect(words.map((r) => r.words)).toEqual([null, null]);
    const rows = knownEvents(t.app.db, w.projectId, w.minds.garrick, now, WORLD_MEMORY_CANDIDATES);
    const got = rankWorldMemories(t.app.ctx, { projectId: w.projectId, mindId: w.minds.garrick, query: "Any zeppelin over the quarry?", limit: 3 });
    expect(got.map((r) => r.id)).toEqual(rankKnown(rows, "Any zeppelin over the quarry?", new Date(now), 3).map((r) => r.id));
    if (rows.some((r) => r.event_id === "evt_words_11")) expect(got[0].event_id).toBe("evt_words_11");
  });
});

describe("world memories in a turn's prompt: only the mind's own", () => {
  test("another mind's unwitnessed event and another project's never reach POST /v1/npc/interact's prompt", async () => {
    const p = buildWorld(t.app.ctx as any, "Leakton", { index: "none" });
    const q = buildWorld(t.app.ctx as any, "Farshore", { index: "none" });
    const post = async (world: World, description: string, witnesses: string[]) => {
      const r = await t.call("POST", "/v1/events", { key: world.keys.server, body: { type: "news", description, witnesses, importance: 10 } });
      expect(r.status).toBe(201);
    };
    await post(p, "OWNMARK the lantern of the harbour went dark", ["garrick"]);
    await post(p, "ELENAMARK the lantern of the harbour went dark at the mill", ["elena"]);
    await post(q, "OTHERMARK the lantern of the harbour went dark at the gate", ["garrick"]);
    // its words filled or not, the visibility is the same
    for (const clear of [false, true]) {
      if (clear) t.app.db.exec("UPDATE world_memories SET words = NULL");
      const r = await t.call("POST", "/v1/npc/interact", { key: p.keys.server, body: { text: "What happened to the harbour lantern at the mill and the gate?", entityMindId: p.minds.garrick, playerId: `asker${clear}` } });
      expect(r.status).toBe(200);
      const prompt = prompts.at(-1)!.map((m) => m.content).join("\n");
      expect(prompt).toContain("OWNMARK");
      expect(prompt).not.toContain("ELENAMARK");
      expect(prompt).not.toContain("OTHERMARK");
    }
    await fillWorldMemoryWords(t.app.ctx);
  });
});
