import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { retrieveMemories } from "../../src/npc/memory/retrieveMemories.ts";
import { updateSettings } from "../../src/projects/settings.ts";
import { realFixtures } from "./realFixtures.ts";
import { realWorld, type RealWorld } from "./realWorld.ts";

// A memory checkpoint written by a real model under the JSON grammar, then found again with memory.retrieve.
const fx = realFixtures();

describe.skipIf(!fx)("memory checkpoint on real weights (SmolLM2-135M-Instruct)", () => {
  let w: RealWorld;
  beforeAll(async () => {
    w = await realWorld(fx!, fx!.smol, { maxReplyTokens: 40 });
    updateSettings(w.t.app.ctx as any, w.projectId, { maxSessionLength: 3, longTermMemoryEnabled: true });
  }, 120_000);
  afterAll(() => w?.t.close());

  test("facts the player stated become schema-valid memories, retrievable in the next session", async () => {
    const player = "mem-mara";
    const lines = ["Hello! My name is Mara.", "I owe you 30 gold for the room, and I will pay you back next week.", "Goodbye for now."];
    let last: any;
    for (const text of lines) {
      last = await w.interact("garrick", player, text);
      expect(last.status).toBe(200);
    }
    expect(last.body.metadata.memoryCheckpoint).toBe(true);

    const memories = await retrieveMemories(w.t.app.ctx as any, {
      projectId: w.projectId,
      mindId: w.minds.garrick,
      playerId: player,
      query: "What is my name and what do I owe you?",
      enhanced: true,
      limit: 10,
    });
    expect(memories.length).toBeGreaterThan(0);
    for (const m of memories) {
      expect(typeof m.text).toBe("string");
      expect(m.text.trim().length).toBeGreaterThan(0);
      expect(m.text.length).toBeLessThanOrEqual(300);
      expect(Number.isInteger(m.importance) && m.importance >= 1 && m.importance <= 10).toBe(true);
      expect(Array.isArray(m.topics) && m.topics.length <= 4).toBe(true);
    }
    const all = memories.map((m) => m.text).join(" | ");
    expect(all).toMatch(/\bMara\b/);
    expect(all).toMatch(/\b30\b|thirty/i);
  }, 1_800_000);
});
