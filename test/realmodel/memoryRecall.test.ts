import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storeMemories } from "../../src/npc/memory/storeMemories.ts";
import { qwenFixture, realFixtures } from "./realFixtures.ts";
import { realWorld, type RealWorld } from "./realWorld.ts";

// A stored fact recalled in the player's next conversation, on Qwen2.5-Coder-0.5B-Instruct, through POST
// /v1/npc/interact as a game calls it (memory.retrieve: true): a new session, the player asks whether the mind
// remembers their name. Each player has more memories than a turn carries (5), the name the least important of them:
// it reaches the prompt because the memory naming the player is always kept (src/npc/memory/retrieveMemories.ts).
// Unseeded turns (the server picks each seed), so what is asserted are counts over several players, each bound's
// reason beside it.
const fx = realFixtures();
const qwen = qwenFixture();

const PLAYERS = 6;
const NAME = "The player's name is Corwin Vale.";
const OTHERS = [
  "The player is the captain of the barge Heron.",
  "The player lost a brass compass on the quay.",
  "The player's wife Tilda sends her regards.",
  "The player pays the berth fee on Saturdays.",
  "The player prefers the north mooring.",
  "The player asked about the price of herring.",
];
const ASK = "Good morning again! Do you remember my name?";

describe.skipIf(!fx || !qwen)("a stored memory recalled in a new conversation, on Qwen2.5-Coder-0.5B-Instruct (real weights)", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, qwen!, { maxReplyTokens: 40 }, "examples/saltmarsh-quality.yaml");
    for (let i = 0; i < PLAYERS; i++) {
      const drafts = [NAME, ...OTHERS].map((text, k) => ({ text, importance: k === 0 ? 3 : 8, topics: [] }));
      await storeMemories(w.t.app.ctx as any, { projectId: w.projectId, mindId: w.minds.odile, playerId: `known-${i}`, drafts });
      await storeMemories(w.t.app.ctx as any, { projectId: w.projectId, mindId: w.minds.odile, playerId: `unnamed-${i}`, drafts: drafts.slice(1) });
    }
  }, 300_000);
  afterAll(() => w?.t.close());

  const ask = (playerId: string) =>
    w.t.call("POST", "/v1/npc/interact", { key: w.serverKey, body: { text: ASK, entityMindId: w.minds.odile, playerId, memory: { retrieve: true } } });

  test(`${PLAYERS} players whose name is stored: most replies say it; ${PLAYERS} with no name stored: none do`, async () => {
    const known: string[] = [];
    const unnamed: string[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const a = await ask(`known-${i}`);
      expect(a.status).toBe(200);
      known.push(a.body.response);
      const b = await ask(`unnamed-${i}`);
      expect(b.status).toBe(200);
      unnamed.push(b.body.response);
    }
    const said = (r: string) => /\bCorwin\b/.test(r);
    const recalled = known.filter(said).length;
    console.log(`[realmodel] recall: the name in ${recalled}/${PLAYERS} replies (no name stored: ${unnamed.filter(said).length}/${PLAYERS})\n  ${known.map((r) => JSON.stringify(r)).join("\n  ")}`);
    // An invented name the mind could only have from its memory: never said to a player whose memories lack it,
    // whatever the CPU (it is nowhere else in the prompt).
    expect(unnamed.filter(said)).toEqual([]);
    // Recall is a rate: 6 of 6 here (Xeon, 1 thread: "Yes, I remember your name as Corwin Vale.", "I'm Corwin Vale."
    // counts too: the name is said). At a true rate of 80 %, fewer than 3 of 6 is a 1.7 % event. Before the name was
    // kept it could not be said at all: the five more important memories filled the turn (test/npc/memoryRecall.test.ts).
    expect(recalled).toBeGreaterThanOrEqual(3);
  }, 1_800_000);
});
