import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { summariseSession } from "../../src/npc/memory/summariseSession.ts";
import { qwenFixture, REAL_THREADS } from "./realFixtures.ts";

// A memory checkpoint on Qwen2.5-Coder-0.5B-Instruct, the session the issue measured: the player's first person ("I
// owe you 37 dollars for the whiskey I drank"), and the saloon keeper's small talk ("Well, I'm off to bed"). Stored
// memories must be facts about the player in the third person (src/npc/memory/memoryVoice.ts).
const qwen = qwenFixture();

const SESSION = [
  { role: "user" as const, content: "Evening, partner. My name is Tamsin Orrick, I just rode in from the coast." },
  { role: "assistant" as const, content: "Evening, Tamsin. Pull up a stool; the stove's warm." },
  { role: "user" as const, content: "I owe you 37 dollars for the whiskey I drank on credit last month. I'll pay you when the stage comes." },
  { role: "assistant" as const, content: "I haven't forgotten. Well, I'm off to bed. Goodnight, Tamsin." },
];
const FIRST_OR_SECOND = /\b(?:I|I'm|I've|I'll|I'd|me|my|mine|myself|we|us|our|you|your|yours)\b/i;

describe.skipIf(!qwen)("memories in the mind's voice on Qwen2.5-Coder-0.5B-Instruct (real weights)", () => {
  let llm: LlmEngine;
  beforeAll(async () => {
    llm = await LlmEngine.load({ modelPath: qwen!, threads: REAL_THREADS, parallel: 1, contextSize: 2048 });
  }, 120_000);
  afterAll(() => llm?.dispose());

  // The voice is a property of every stored memory, whatever the sample (the post-check enforces it), so it is
  // asserted for every seed on any CPU. Recall is a rate: the player's name was kept in 4 of 4 seeds here; at a
  // rate of even 60%, none of 4 is a 2.6% event, while a filter that dropped every memory in the player's words
  // would keep it in none.
  test("seeds 1-4: no stored memory in the first or second person, none a line copied; the name kept in at least 1", async () => {
    const texts: string[] = [];
    for (let seed = 1; seed <= 4; seed++) {
      const r = await summariseSession(llm, { mindName: "Jory Tallow", playerId: "p", messages: SESSION }, { seed });
      for (const m of r.memories) {
        expect(m.text).not.toMatch(FIRST_OR_SECOND);
        expect(m.text).not.toContain("off to bed");
      }
      texts.push(r.memories.map((m) => m.text).join(" | "));
    }
    const named = texts.filter((t) => /\bTamsin\b/.test(t)).length;
    console.log(`[realmodel] Qwen memory voice: name ${named}/4; ${JSON.stringify(texts)}`);
    expect(named).toBeGreaterThanOrEqual(1);
  }, 1_200_000);
});
