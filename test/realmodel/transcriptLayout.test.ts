import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TRANSCRIPT_LAYOUT } from "../../src/llm/transcriptTurn.ts";
import { realFixtures } from "./realFixtures.ts";
import { hardProblems } from "./replyChecks.ts";
import { realWorld, type RealWorld } from "./realWorld.ts";

// Gemma 3 270M is a base model: it reads the conversation as a script (src/llm/transcriptTurn.ts) laid out as the
// naive baseline's prompt: a plain persona, the lore as documents, a generic example exchange, the player's line. The turns are unseeded (a
// fresh draw every run, on any CPU): asserted are properties every reply has by construction, and rates over the
// turns with their bounds' reasons beside them.
const fx = realFixtures();

/** Lore questions whose answers are in the minds' notes (examples/thornhaven.yaml). */
const TURNS: [string, string][] = [
  ["captain-hesk", "When do the town gates close?"],
  ["nan-wicker", "What do you give for a cough?"],
  ["garrick", "What is your house porter called?"],
  ["brother-aldous", "What saying is cut above the church door?"],
];
const ROUNDS = 3;

describe.skipIf(!fx)("the script layout on Gemma 3 270M (a base model, real weights)", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, fx!.gemma, { maxReplyTokens: 48 });
  }, 300_000);
  afterAll(() => w?.t.close());

  test(`${TURNS.length * ROUNDS} lore turns: no script labels or notes in any reply; the example's own fact not copied`, async () => {
    const replies: string[] = [];
    for (let round = 0; round < ROUNDS; round++)
      for (const [mind, text] of TURNS) {
        const r = await w.interact(mind, `script-${mind}-${round}`, text);
        expect(r.status).toBe(200);
        replies.push(r.body.response as string);
      }
    const copied = replies.filter((r) => /forty feet|old well/i.test(r));
    console.log(`[realmodel] script layout on Gemma: ${copied.length}/${replies.length} replies copy the example's fact\n  ${replies.map((r) => JSON.stringify(r)).join("\n  ")}`);
    for (const reply of replies) {
      // By construction on any CPU: a reply ends at a line that opens the player's turn, a heading or the notes'
      // block (stop triggers), and its own label is never part of it.
      expect(hardProblems(reply)).toEqual([]);
      expect(reply).not.toMatch(/\bknows:/);
    }
    // The example is about an old well forty feet deep, which no question here touches. For these four minds (their
    // turn's notes come after the example, so it is not next to the question) the product under this layout copied
    // it in 0 of 18 tuning replies (bench/baseLayoutQuality.ts, seeds 1–3); over every tuning mind, where it can stand
    // just above the question, 16 of 126 (13 %). Even at 13 %, more than 3 of 12 is a 5 % event; at the four minds'
    // own rate (under 5 %), 0.2 %.
    if (TRANSCRIPT_LAYOUT.example) expect(copied.length).toBeLessThanOrEqual(3);
    else expect(copied).toEqual([]);
  }, 1_800_000);
});
