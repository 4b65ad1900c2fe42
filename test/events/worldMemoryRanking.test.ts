import { describe, expect, test } from "bun:test";
import { rankKnown, WORLD_RECENCY_HALF_LIFE_HOURS, WORLD_WEIGHTS } from "../../src/events/worldMemories.ts";
import type { KnownEvent } from "../../src/events/worldMemoryStore.ts";
import { keywords } from "../../src/npc/memory/memoryText.ts";

// The ranking skips tokenising an event whose lower-cased text cannot hold a query keyword: it must rank exactly as
// scoring every candidate by its full keyword set does, whatever the words (plurals, "-ies", stop words, case,
// punctuation, digits, non-ASCII text that normalises differently).
function reference(rows: KnownEvent[], query: string, now: Date, limit: number) {
  const words = keywords(query);
  const scored = rows.map((k) => {
    const own = keywords(`${k.type} ${k.description}`);
    let shared = 0;
    for (const x of words) if (own.has(x)) shared++;
    const relevance = words.size ? shared / words.size : 0;
    const ageHours = Math.max(0, (now.getTime() - Date.parse(k.known_at)) / 3_600_000);
    const recency = 0.5 ** (ageHours / WORLD_RECENCY_HALF_LIFE_HOURS);
    return { ...k, score: WORLD_WEIGHTS.relevance * relevance + WORLD_WEIGHTS.importance * (k.importance / 10) + WORLD_WEIGHTS.recency * recency };
  });
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return scored.slice(0, limit);
}

const VOCAB = [
  "city", "cities", "City's", "harbour", "harbours", "HARBOUR", "lantern", "lanterns", "salt", "salts", "ferry", "ferries", "gate", "gates", "the", "a", "of",
  "bus", "buses", "glass", "status", "mill", "millers", "north", "guard", "guards", "debt", "42", "4th", "night-watch", "ﬁsh", "fish", "Café", "cafe",
  "ÉCLAIR", "éclair", "naïve", "Straße", "strasse", "player", "players", "x", "it's", "ies", "y", "sky", "skies",
];
let seed = 12345;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const phrase = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]).join(rnd() < 0.3 ? ", " : " ");
const event = (i: number, now: Date): KnownEvent => ({
  id: `wm${String(i).padStart(4, "0")}`,
  project_id: "p",
  mind_id: "m",
  event_id: `ev-rank-${seed}-${i}`,
  player_id: null,
  memory_id: null,
  importance: 1 + Math.floor(rnd() * 10),
  hop: 0,
  told_by: null,
  told_by_name: null,
  known_at: new Date(now.getTime() - Math.floor(rnd() * 200) * 3_600_000).toISOString(),
  spread_at: null,
  created_at: now.toISOString(),
  type: ["trade", "fight", "rumour"][i % 3],
  description: phrase(2 + Math.floor(rnd() * 10)),
  game_time: null,
});

describe("world memories: ranking", () => {
  test("ranks as scoring every candidate by its full keyword set, over 300 random worlds and queries", () => {
    const now = new Date("2026-06-01T12:00:00.000Z");
    let relevant = 0;
    for (let world = 0; world < 300; world++) {
      const rows = Array.from({ length: 60 }, (_, i) => event(i, now));
      const query = phrase(1 + Math.floor(rnd() * 5));
      const got = rankKnown(rows, query, now, 10);
      const want = reference(rows, query, now, 10);
      expect(got.map((r) => [r.id, r.score])).toEqual(want.map((r) => [r.id, r.score]));
      expect(got).toEqual(want);
      const words = keywords(query);
      relevant += rows.filter((r) => [...keywords(`${r.type} ${r.description}`)].some((x) => words.has(x))).length;
    }
    // the property is tested on events that share words with the query, not only on ones that cannot
    expect(relevant).toBeGreaterThan(1000);
  });

  test("an event sharing only a plural or an -ies form with the query still counts as relevant", () => {
    const now = new Date("2026-06-01T12:00:00.000Z");
    const base = { ...event(0, now), importance: 1, known_at: now.toISOString() };
    const rows = [
      { ...base, id: "a", event_id: "ev-ies", type: "rumour", description: "The skies over the ferries" },
      { ...base, id: "b", event_id: "ev-plain", type: "rumour", description: "Nothing here" },
    ];
    const [top] = rankKnown(rows, "Is the sky clear for the ferry?", now, 2);
    expect(top.id).toBe("a");
    expect(top.score).toBeGreaterThan(rankKnown(rows, "Is the sky clear for the ferry?", now, 2)[1].score);
  });

  test("an event whose text a pack rewrote is ranked by its new words, not the ones first seen for its id", () => {
    const now = new Date("2026-06-01T12:00:00.000Z");
    const base = { ...event(0, now), id: "wm-rewritten", event_id: "ev-rewritten-by-a-pack", importance: 1, known_at: now.toISOString(), type: "rumour" };
    const other = { ...base, id: "wm-other", event_id: "ev-other", importance: 2, description: "Bread is dear this week" };
    // first ranked with its old text, for a question about it: its words are kept for its id
    const before = rankKnown([{ ...base, description: "The mill burned down" }, other], "What burned at the mill?", now, 2);
    expect(before[0].id).toBe("wm-rewritten");
    expect(rankKnown([{ ...base, description: "The mill burned down" }, other], "What about the lighthouse keeper?", now, 2)[0].id).toBe("wm-other");
    const after = rankKnown([{ ...base, description: "The lighthouse keeper vanished" }, other], "What about the lighthouse keeper?", now, 2);
    expect(after[0].id).toBe("wm-rewritten");
    expect(after).toEqual(reference([{ ...base, description: "The lighthouse keeper vanished" }, other], "What about the lighthouse keeper?", now, 2));
  });
});
