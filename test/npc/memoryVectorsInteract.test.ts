import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { capturePrompts } from "../support/capturePrompts.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { storeMemories } from "../../src/npc/memory/storeMemories.ts";
import { updateSettings } from "../../src/projects/settings.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import type { MemorySide } from "../../src/vectors/memoryIndex.ts";

// Under enhanced retrieval a pair's first turn reads its memories' vectors from the copy beside their SQLite rows
// (memory_vectors) instead of LanceDB. Through POST /v1/npc/interact, with real llama.cpp (a tiny random-weight
// GGUF): the prompt holds the player's own memories with this mind, read from the copy, and never another player's
// or another project's; a wrong or missing key generates nothing.
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let t: TestApp;
let w: World;
let other: World;
const sent: ChatMessage[][] = [];
const seen = { hits: 0, misses: 0 };

const OWN = "The player hid the salt ledger under the ferry bench.";
const OTHER_PLAYER = "The player stole the salt ledger from the ferryman.";
const OTHER_PROJECT = "The player sold the salt ledger in another world.";
const LINE = "What became of the salt ledger?";

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  await t.app.scheduler.trigger("indexer");
  for (const world of [w, other]) updateSettings(t.app.ctx, world.projectId, { enhancedMemoryRetrieval: true });
  capturePrompts(t.app, sent);
  const remember = (projectId: string, mindId: string, playerId: string, texts: string[]) =>
    storeMemories(t.app.ctx, { projectId, mindId, playerId, drafts: texts.map((text, i) => ({ text, importance: 4 + i, topics: [] })) });
  await remember(w.projectId, w.minds.garrick, "rosalind", [OWN, "The player prefers the dark porter."]);
  await remember(w.projectId, w.minds.garrick, "corwin", [OTHER_PLAYER]);
  await remember(other.projectId, other.minds.garrick, "rosalind", [OTHER_PROJECT]);
  // what the turns read: from the copy (hits) or LanceDB (misses); the groups are not loaded yet (a restart's state)
  const side = t.app.ctx.vectors.memorySide!;
  const watched: MemorySide = {
    read: (...a) => {
      const r = side.read(...a);
      if (r) seen.hits++;
      else seen.misses++;
      return r;
    },
    write: side.write,
  };
  t.app.ctx.vectors.memorySide = watched;
  const g = t.app.ctx.vectors.activeGeneration();
  for (const p of [w.projectId, other.projectId]) g.memoryGroups.deleted({ projectId: p });
}, 60_000);
afterAll(() => t.close());

async function turn(world: World, playerId: string, key: string | null = world.keys.server) {
  const before = sent.length;
  const r = await t.call("POST", "/v1/npc/interact", { key, body: { text: LINE, entityMindId: world.minds.garrick, playerId, memory: { retrieve: true } } });
  const prompt = sent.slice(before).map((m) => m.map((x) => x.content).join("\n"))[0] ?? "";
  return { status: r.status, prompt, generated: sent.length - before };
}

describe("a pair's first turn under enhanced retrieval, its memories read from the copy", () => {
  test("the player's own memories, from the copy, and no other player's", async () => {
    const hits = seen.hits;
    const r = await turn(w, "rosalind");
    expect(r.status).toBe(200);
    expect(seen.hits).toBe(hits + 1);
    expect(r.prompt).toContain(OWN);
    expect(r.prompt).not.toContain(OTHER_PLAYER);
    expect(r.prompt).not.toContain(OTHER_PROJECT);
  });
  test("another player with the same mind: theirs alone", async () => {
    const r = await turn(w, "corwin");
    expect(r.status).toBe(200);
    expect(r.prompt).toContain(OTHER_PLAYER);
    expect(r.prompt).not.toContain(OWN);
    expect(r.prompt).not.toContain(OTHER_PROJECT);
  });
  test("the same player id in another project: that project's memories alone", async () => {
    const r = await turn(other, "rosalind");
    expect(r.status).toBe(200);
    expect(r.prompt).toContain(OTHER_PROJECT);
    expect(r.prompt).not.toContain(OWN);
    expect(r.prompt).not.toContain(OTHER_PLAYER);
    expect(seen.misses).toBe(0);
  });
  test("another project's key for this project's mind: 404; a revoked key or none: 401; nothing generated", async () => {
    const wrong = await turn(w, "rosalind", other.keys.server);
    expect(wrong.status).toBe(404);
    expect((await turn(w, "rosalind", w.keys.revokedServer)).status).toBe(401);
    const none = await turn(w, "rosalind", null);
    expect(none.status).toBe(401);
    expect(wrong.generated + none.generated).toBe(0);
  });
});
