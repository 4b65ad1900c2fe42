import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { qwenFixture, realFixtures } from "./realFixtures.ts";
import { hardProblems } from "./replyChecks.ts";
import { realWorld, type RealWorld } from "./realWorld.ts";

// Grounding end to end on a real 0.5B instruct model: the answer is in one lore document only (not in the mind's
// persona), so it reaches the reply only through retrieval, the prompt and the model reading it.
const fx = realFixtures();
const qwen = qwenFixture();

describe.skipIf(!fx || !qwen)("grounding on Qwen2.5-Coder-0.5B-Instruct (real weights)", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, qwen!, { maxReplyTokens: 32 }, "examples/saltmarsh-quality.yaml");
  }, 120_000);
  afterAll(() => w?.t.close());

  // Unseeded (the interact body has no seed; Odile samples at 0.7): each player is a fresh draw on any CPU. Both
  // market days were named in 40 of 40 draws here (Xeon, AVX-512, 1 thread); at a rate of even 92.5% (the lower
  // end of what 40 of 40 allows), fewer than 2 of 4 is a 0.16% event; Bram, who cannot see the market's lore, named
  // them in 0 of 6 ("on Friday"), so the bound is not met by guessing. Markers and headings: never, by construction.
  test("a lore fact reaches the reply through POST /v1/npc/interact: at least 2 of 4 players hear both market days", async () => {
    const replies: string[] = [];
    for (let i = 1; i <= 4; i++) {
      const r = await w.interact("odile", `market-${i}`, "On which days is the fish market held?");
      expect(r.status).toBe(200);
      const reply = r.body.response as string;
      expect(hardProblems(reply)).toEqual([]);
      replies.push(reply);
    }
    const grounded = replies.filter((r) => /tuesday/i.test(r) && /saturday/i.test(r)).length;
    console.log(`[realmodel] Qwen grounding: ${grounded}/4 name both market days; e.g. ${JSON.stringify(replies[0])}`);
    expect(grounded).toBeGreaterThanOrEqual(2);
  }, 600_000);
});
