import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { summariseSession } from "../../src/npc/memory/summariseSession.ts";
import { storeMemories } from "../../src/npc/memory/storeMemories.ts";
import { listMemories } from "../../src/npc/memory/memoryAdmin.ts";
import type { MemoryDraft } from "../../src/npc/memory/types.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { memoryWorld } from "./memoryWorld.ts";

setDefaultTimeout(120_000);

// Real llama.cpp on the suite's random-weight tiny model: its JSON is gibberish under the
// grammar (often cut by maxTokens), so these tests prove shape and robustness, not content.
let llm: LlmEngine;

beforeAll(async () => {
  llm = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 2, parallel: 1 });
});
afterAll(async () => {
  await llm?.dispose();
});

const conversation = [
  { role: "user" as const, content: "Hello Garrick, my name is Ada and I came from the north road." },
  { role: "assistant" as const, content: "Welcome to the tavern, traveler!" },
  { role: "user" as const, content: "I am looking for the missing caravan. I will bring you gold." },
  { role: "assistant" as const, content: "The old guard may know more." },
];

function expectValidDrafts(memories: MemoryDraft[]) {
  expect(Array.isArray(memories)).toBe(true);
  expect(memories.length).toBeLessThanOrEqual(8);
  const seen = new Set<string>();
  for (const m of memories) {
    expect(Object.keys(m).sort()).toEqual(["importance", "text", "topics"]);
    expect(typeof m.text).toBe("string");
    expect(m.text).toBe(m.text.trim());
    expect(m.text).toMatch(/[\p{L}\p{N}]/u);
    expect(Number.isInteger(m.importance)).toBe(true);
    expect(m.importance).toBeGreaterThanOrEqual(1);
    expect(m.importance).toBeLessThanOrEqual(10);
    for (const topic of m.topics) expect(typeof topic).toBe("string");
    const key = m.text.toLowerCase();
    expect(seen.has(key)).toBe(false);
    seen.add(key);
  }
}

describe("summariseSession on real llama.cpp (tiny random model)", () => {
  for (const seed of [1, 2]) {
    test(`returns schema-valid drafts and token counts (seed ${seed})`, async () => {
      const r = await summariseSession(llm, { mindName: "Garrick", playerId: "p1", messages: conversation }, { maxTokens: 64, seed });
      expectValidDrafts(r.memories);
      expect(r.promptTokens).toBeGreaterThan(0);
      expect(r.completionTokens).toBeGreaterThan(0);
      expect(r.completionTokens).toBeLessThanOrEqual(64);
    });
  }

  test("a transcript longer than the context keeps its newest messages and still answers", async () => {
    const long = Array.from({ length: 60 }, (_, i) => ({
      role: (i % 2 ? "assistant" : "user") as "user" | "assistant",
      content: `Message ${i}: the king sent the guard north to the castle by the river.`,
    }));
    const r = await summariseSession(llm, { mindName: "Garrick", playerId: "p1", messages: long }, { maxTokens: 48 });
    expectValidDrafts(r.memories);
    expect(r.promptTokens).toBeGreaterThan(0);
    expect(r.promptTokens + 48).toBeLessThanOrEqual(llm.contextSize);
  });

  test("one enormous message is cut to fit", async () => {
    const r = await summariseSession(llm, { mindName: "Garrick", playerId: "p1", messages: [{ role: "user", content: "dragon gold ".repeat(3000) }] }, { maxTokens: 48 });
    expectValidDrafts(r.memories);
    expect(r.promptTokens).toBeGreaterThan(0);
    expect(r.promptTokens + 48).toBeLessThanOrEqual(llm.contextSize);
  });

  test("an aborted signal gives no memories, not an error", async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await summariseSession(llm, { mindName: "Garrick", playerId: "p1", messages: conversation }, { maxTokens: 64, signal: ac.signal });
    expect(r.memories).toEqual([]);
    expect(r.completionTokens).toBe(0);
  });

  test("a session without a player message is not sent to the model", async () => {
    const before = llm.stats().decodeCalls;
    const r = await summariseSession(llm, { mindName: "Garrick", playerId: "p1", messages: [{ role: "assistant", content: "Hello?" }, { role: "user", content: "   " }] });
    expect(r).toEqual({ memories: [], promptTokens: 0, completionTokens: 0 });
    expect(llm.stats().decodeCalls).toBe(before);
  });

  test("summarise → store end to end", async () => {
    const t: TestApp = await createTestApp();
    try {
      const w = memoryWorld(t.app.ctx);
      const r = await summariseSession(llm, { mindName: "Garrick", playerId: "ada", messages: conversation }, { maxTokens: 96, seed: 7 });
      const stored = await storeMemories(t.app.ctx, { projectId: w.p1, mindId: w.garrick, playerId: "ada", drafts: r.memories });
      expect(stored.length).toBeLessThanOrEqual(r.memories.length);
      expect(listMemories(t.app.ctx, w.p1, "ada")).toHaveLength(stored.length);
    } finally {
      await t.close();
    }
  });
});
