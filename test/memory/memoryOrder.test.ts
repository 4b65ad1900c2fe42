import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storeMemories } from "../../src/npc/memory/storeMemories.ts";
import { scopeMemories } from "../../src/npc/memory/memoryRows.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { memoryWorld } from "./memoryWorld.ts";

/**
 * A summary's memories are written at one time: read back, they come in the order the summary gave them, for every
 * player (ordered by their random ids, they came in a new order each time, and so did the prompt's memory notes).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("the order of memories written together", () => {
  test("is the order written, whatever ids they drew", async () => {
    const ctx = t.app.ctx;
    const w = memoryWorld(ctx);
    const texts = ["The player's name is Ada.", "The player comes from Carrow.", "The player owes 37 crowns.", "The player keeps bees.", "The player fears the river.", "The player sings badly."];
    for (let p = 0; p < 5; p++) {
      const scope = { projectId: w.p1, mindId: w.garrick, playerId: `order-${p}` };
      await storeMemories(ctx as any, { ...scope, drafts: texts.map((text, i) => ({ text, importance: 5, topics: [`t${i}`] })) });
      const read = scopeMemories(ctx.db, scope);
      expect(new Set(read.map((m) => m.createdAt)).size).toBe(1);
      expect(read.map((m) => m.text)).toEqual(texts);
    }
  });
});
