import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { summariseSession, SUMMARY_SCHEMA } from "../../src/npc/memory/summariseSession.ts";
import { MAX_MEMORIES_PER_SUMMARY } from "../../src/npc/memory/types.ts";
import { REAL_THREADS, realFixtures } from "./realFixtures.ts";

// A memory checkpoint's summary written by a real model under the JSON grammar, with the prompt's worked example,
// the grammar's 120-character memories and the grounding filter (src/npc/memory/summaryPrompt.ts).
// Which seed keeps which fact differs per CPU (llama.cpp's kernels differ in the last bits), so recall is asserted
// as a rate over seeds. Measured here (Xeon, AVX-512, 1 thread, temperature 0.2 as summariseSession samples):
// "Mara" in 60 of 60 summaries (seeds 1-60), the debt's amount ("30") in 39 of 60, never an empty summary.
const fx = realFixtures();

const SESSION = [
  { role: "user" as const, content: "Hello! My name is Mara." },
  { role: "assistant" as const, content: "Welcome to the Rusty Tankard, Mara! What can I get you?" },
  { role: "user" as const, content: "I owe you 30 gold for the room, and I will pay you back next week." },
  { role: "assistant" as const, content: "Thirty gold it is, friend. I'll chalk it on the beam." },
];

describe.skipIf(!fx)("memory summary on real weights (SmolLM2-135M-Instruct)", () => {
  let llm: LlmEngine;
  beforeAll(async () => {
    llm = await LlmEngine.load({ modelPath: fx!.smol, threads: REAL_THREADS, parallel: 1, contextSize: 1024 });
  });
  afterAll(() => llm?.dispose());

  const checkShape = (memories: Awaited<ReturnType<typeof summariseSession>>["memories"]) => {
    const item = SUMMARY_SCHEMA.properties.memories.items.properties;
    expect(memories.length).toBeLessThanOrEqual(MAX_MEMORIES_PER_SUMMARY);
    for (const m of memories) {
      expect(Object.keys(m).sort()).toEqual(["importance", "text", "topics"]);
      expect(m.text.trim().length).toBeGreaterThan(0);
      expect(m.text.length).toBeLessThanOrEqual(item.text.maxLength);
      expect(item.importance.enum as readonly number[]).toContain(m.importance);
      expect(m.topics.length).toBeLessThanOrEqual(item.topics.maxItems);
    }
  };

  // Shape: every sample (grammar + sanitiseDrafts). Recall over seeds 1-10: at a name rate of 95% (60 of 60 measured),
  // fewer than 6 of 10 is a 0.006% event; at an amount rate of 55% (39 of 60 measured), none of 10 is 0.03%. A prompt
  // or filter that loses names or numbers fails both.
  test("seeds 1-10: schema-valid memories every time; the name kept in at least 6, the debt's amount in at least 1", async () => {
    const texts: string[] = [];
    for (let seed = 1; seed <= 10; seed++) {
      const r = await summariseSession(llm, { mindName: "Garrick Thorne", playerId: "p", messages: SESSION }, { seed });
      expect(r.completionTokens).toBeGreaterThan(0);
      checkShape(r.memories);
      texts.push(r.memories.map((m) => m.text).join(" | "));
    }
    const named = texts.filter((t) => /\bMara\b/.test(t)).length;
    const amount = texts.filter((t) => /\b30\b|thirty/i.test(t)).length;
    console.log(`[realmodel] memory summaries: name ${named}/10, amount ${amount}/10; seed 1: ${JSON.stringify(texts[0])}`);
    expect(named).toBeGreaterThanOrEqual(6);
    expect(amount).toBeGreaterThanOrEqual(1);
  }, 600_000);

  // Before the 120-character cap, 160 tokens cut the model's one 300-character memory mid-string: 0 memories. The
  // budget holds for every sample; whole memories naming the player came in 60 of 60 seeds at this budget (1-60), so
  // none of 3 is a 0.01% event at a 95% rate, while cutting strings mid-way gives none at all.
  test("a tight answer budget still yields whole memories (the grammar closes each string within ~40 tokens): seeds 11-13", async () => {
    let whole = 0;
    for (let seed = 11; seed <= 13; seed++) {
      const r = await summariseSession(llm, { mindName: "Garrick Thorne", playerId: "p", messages: SESSION }, { seed, maxTokens: 120 });
      expect(r.completionTokens).toBeLessThanOrEqual(120);
      checkShape(r.memories);
      if (r.memories.length > 0 && /\bMara\b/.test(r.memories.map((m) => m.text).join(" "))) whole++;
    }
    expect(whole).toBeGreaterThanOrEqual(1);
  }, 600_000);
});
