import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { prng } from "../support/prng.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { loadMindProfile } from "../../src/npc/mindProfile.ts";
import { prepareTurn } from "../../src/npc/prepareTurn.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { MindWarmer } from "../../src/npc/warmMinds.ts";
import { chooseSharedLore } from "../../src/npc/sharedLore/sharedLore.ts";
import { readSelection, recordHits, totalHits } from "../../src/npc/sharedLore/sharedLoreStore.ts";
import { RECHOICE_MIN_INTERVAL_MS, REFRESH_MIN_HITS, rechoiceVerdict, type RechoiceInput, type RechoiceVerdict } from "../../src/npc/sharedLore/rechoice.ts";

// The shared-lore level is chosen again from retrieval counts only when that is worth every conversation of
// the mind losing its cached prompt (rechoice.ts): a table of the rule, then ordinary play through the warm
// job's ticks. No model: retrieval (hashing embedder + BM25) and the counts are deterministic.
setDefaultTimeout(120_000);

const MIN = 60_000;
const hits = (o: Record<string, number>) => new Map(Object.entries(o));
const base: RechoiceInput = { current: ["a", "b"], candidate: ["c", "d"], hits: hits({ a: 2, b: 3, c: 10, d: 9 }), totalHits: 40, hitsAt: 0, sinceMs: 11 * MIN };

describe("the re-choice rule (table)", () => {
  const cases: [string, Partial<RechoiceInput>, RechoiceVerdict][] = [
    ["too few retrievals yet", { totalHits: REFRESH_MIN_HITS - 1 }, "few-hits"],
    ["retrievals not doubled since the choice", { totalHits: 39, hitsAt: 20 }, "few-hits"],
    ["doubled, but chosen 9 minutes ago", { sinceMs: 9 * MIN }, "too-soon"],
    ["the interval exactly", { sinceMs: RECHOICE_MIN_INTERVAL_MS }, "rechoose"],
    ["the same chunks in another order", { candidate: ["b", "a"] }, "same"],
    ["near-equal chunks reshuffled (78 → 83 hits)", { hits: hits({ a: 40, b: 38, c: 42, d: 41 }), totalHits: 400, hitsAt: 100 }, "not-material"],
    ["a clearly better level (5 → 19 hits)", {}, "rechoose"],
    ["one chunk swapped for one retrieved 25% more often (60 → 75)", { candidate: ["a", "c"], hits: hits({ a: 400, b: 60, c: 75 }), totalHits: 900, hitsAt: 400 }, "rechoose"],
    ["… and for one retrieved just under 25% more often (60 → 74)", { candidate: ["a", "c"], hits: hits({ a: 400, b: 60, c: 74 }), totalHits: 900, hitsAt: 400 }, "not-material"],
    ["early counts: +9 hits over an unretrieved level is noise", { current: ["a"], candidate: ["b"], hits: hits({ b: 9 }) }, "not-material"],
    ["+10 hits over an unretrieved level", { current: ["a"], candidate: ["b"], hits: hits({ b: 10 }) }, "rechoose"],
    ["a candidate that would serve fewer retrievals", { hits: hits({ a: 30, b: 30, c: 10, d: 9 }) }, "not-material"],
  ];
  for (const [name, change, verdict] of cases) {
    test(`${name}: ${verdict}`, () => expect(rechoiceVerdict({ ...base, ...change })).toBe(verdict));
  }
});

describe("ordinary play converges to one level", () => {
  let t: TestApp;
  let w: World;
  const TOPICS = ["barley", "cellar", "dice", "fiddler", "hearth", "lantern", "stables", "well"];
  const topicChunk: Record<string, string> = {};
  let warmer: MindWarmer;
  let ticks = 0;
  let turns = 0;
  const rechoices: number[] = [];
  // What a count-only rule (the choice made again whenever retrievals doubled) would have done on the same play.
  const countOnly = { hitsAt: 0, current: [] as string[], changes: 0 };

  beforeAll(async () => {
    t = await createTestApp({ contextSize: 2048, maxReplyTokens: 64 });
    w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
    for (const topic of TOPICS) {
      const id = createDocument(t.app.ctx, w.projectId, {
        name: `Tankard ${topic}`,
        content: `About the ${topic} of the Rusty Tankard: ${`the ${topic} is talked about by every guest, and the ${topic} has a story of its own. `.repeat(6)}`,
        tags: ["tavern"],
      }).id;
      t.clock.advance(1000);
      await t.app.scheduler.trigger("indexer");
      topicChunk[topic] = t.app.db.query<{ id: string }, [string]>("SELECT id FROM chunks WHERE document_id = ?").get(id)!.id;
    }
    warmer = new MindWarmer({ ...t.app.ctx, llm: { warmMind: () => {} } as any });
    warmer.tick();
    const sel = readSelection(t.app.db, w.projectId, w.minds.garrick)!;
    countOnly.current = sel.chunkIds;
    // The budget holds some of Garrick's lore, not all of it: there is a choice to make.
    expect(sel.chunkIds.length).toBeGreaterThan(1);
    expect(sel.chunkIds.length).toBeLessThan(TOPICS.length);
  });
  afterAll(() => t.close());

  /** One player line (the turn's retrieval, counted as the interact service counts it), then 5 s and one warm-job tick. */
  async function play(n: number, topicOf: (i: number) => string): Promise<void> {
    for (let i = 0; i < n; i++) {
      const topic = topicOf(i);
      const p = await prepareTurn(t.app.ctx, w.projectId, validateInteract({ text: `What about the ${topic}?`, entityMindId: w.minds.garrick, playerId: `player-${turns++ % 30}` }));
      recordHits(t.app.db, w.projectId, w.minds.garrick, p.retrieved);
      t.clock.advance(5000);
      const before = readSelection(t.app.db, w.projectId, w.minds.garrick)!.chunkIds;
      warmer.tick();
      if (++ticks % 12 === 0) {
        // the warm job's hits check: what the count-only rule would have done at the same moment
        const total = totalHits(t.app.db, w.projectId, w.minds.garrick);
        if (total >= Math.max(REFRESH_MIN_HITS, 2 * countOnly.hitsAt)) {
          const candidate = chooseSharedLore(t.app.ctx, w.projectId, loadMindProfile(t.app.ctx, w.projectId, w.minds.garrick));
          if (JSON.stringify(candidate) !== JSON.stringify(countOnly.current)) countOnly.changes++;
          countOnly.current = candidate;
          countOnly.hitsAt = total;
        }
      }
      const after = readSelection(t.app.db, w.projectId, w.minds.garrick)!.chunkIds;
      if (JSON.stringify(after) !== JSON.stringify(before)) rechoices.push(ticks);
    }
  }

  test("an hour of players asking about everything: at most one re-choice, where choosing from counts alone changes the level again and again", async () => {
    const rng = prng(11);
    await play(720, () => TOPICS[Math.floor(rng() * TOPICS.length)]);
    expect(countOnly.changes).toBeGreaterThanOrEqual(2);
    expect(rechoices.length).toBeLessThanOrEqual(1);
  });

  test("a lasting shift (everyone asks about one thing the level lacks) is taken up once, after the interval; then it holds", async () => {
    const current = readSelection(t.app.db, w.projectId, w.minds.garrick)!.chunkIds;
    const missing = TOPICS.find((x) => !current.includes(topicChunk[x]))!;
    expect(missing).toBeDefined();
    const before = rechoices.length;
    await play(540, () => missing); // 45 minutes: its count has to overtake the dropped chunk's whole history
    expect(rechoices.length).toBe(before + 1);
    expect(readSelection(t.app.db, w.projectId, w.minds.garrick)!.chunkIds).toContain(topicChunk[missing]);
    const rng = prng(12);
    await play(360, () => TOPICS[Math.floor(rng() * TOPICS.length)]); // 30 more minutes of ordinary play
    expect(rechoices.length).toBe(before + 1);
  });
});
