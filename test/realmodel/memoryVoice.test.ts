import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { summariseSession } from "../../src/npc/memory/summariseSession.ts";
import { EXAMPLE_MARKERS } from "../../src/npc/memory/summaryPrompt.ts";
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
// A tuning world's memory script (Thornhaven) as the product answered it on Qwen: short replies, the mind calling the
// player by the sister's name. Summarised as it stood, Qwen wrote the name and the debt and no sister (seeds 1-2, the
// summary probe: bench/summaryProbe.ts); the player's statements check adds what no memory holds.
const SHORT_SESSION = [
  { role: "user" as const, content: "Hello! My name is Mara." },
  { role: "assistant" as const, content: "Hallo Mara! In Thornhaven, you seem to be a big-hearted and kind-hearted character with a special reputation for making life rich." },
  { role: "user" as const, content: "I owe you 30 gold for the room; I'll pay next week." },
  { role: "assistant" as const, content: "I will also pay the 30 gold for the house ale, and I'll let you book a tour of the Rusty Tankard in the evening." },
  { role: "user" as const, content: "My sister Elsie works at the docks. Goodbye for now." },
  { role: "assistant" as const, content: "Bye for now, Elsie!" },
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

  // What the post-checks guarantee, so asserted for every seed on any CPU: each fact the player stated (a name, a
  // number) is held by some memory, no memory is in the first or second person, none is the sister's work made the
  // player's ("The player works at the docks."), none holds the worked example's facts.
  test("seeds 1-4, a session of short replies: every fact the player stated kept, nothing taken over or copied", async () => {
    for (let seed = 1; seed <= 4; seed++) {
      const r = await summariseSession(llm, { mindName: "Garrick Thorne", playerId: "p", messages: SHORT_SESSION }, { seed });
      const all = r.memories.map((m) => m.text).join(" | ");
      console.log(`[realmodel] Qwen short session, seed ${seed}: ${JSON.stringify(all)}`);
      expect(all).toMatch(/\bMara\b/);
      expect(all).toMatch(/\b30\b|thirty/i);
      expect(all).toMatch(/\bElsie\b/);
      for (const m of r.memories) {
        expect(m.text).not.toMatch(FIRST_OR_SECOND);
        expect(m.text).not.toMatch(/^The player works at the docks\.?$/);
        expect(m.text).not.toMatch(EXAMPLE_MARKERS);
      }
    }
  }, 1_200_000);
});
