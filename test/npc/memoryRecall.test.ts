import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { capturePrompts } from "../support/capturePrompts.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { storeMemories } from "../../src/npc/memory/storeMemories.ts";
import type { ChatMessage } from "../../src/llm/types.ts";

// real llama.cpp (a tiny random-weight GGUF) on shared cores
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let t: TestApp;
let w: World;
let other: World;
let admin: string;
/** The messages of every generation the server ran, as llama.cpp received them. */
const sent: ChatMessage[][] = [];

const RECALL_LINES = ["Do you remember my name?", "Do you remember me?", "Evening again, Garrick."];
const NAME = "The player's name is Rosalind Tey.";
const FINE = "The player owes the Watch a fine of seven crowns.";
/** A memory of another player with the same mind: it must never reach the first player's prompt. */
const OTHERS = "The player's name is Corwin Vale.";

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  await t.app.scheduler.trigger("indexer");
  admin = ensureAdminToken(t.app.db).adminToken;
  capturePrompts(t.app, sent);
  const remember = (projectId: string, mindId: string, playerId: string, texts: string[]) =>
    storeMemories(t.app.ctx, { projectId, mindId, playerId, drafts: texts.map((text, i) => ({ text, importance: 5 + i, topics: [] })) });
  // More memories than a turn's retrieval limit (5): the name is the least important. One player per recall line
  // below (each its own new session), and "rosalind" for the scoping tests.
  for (const player of ["rosalind", ...RECALL_LINES.map((_, i) => `rosalind-${i}`)])
    await remember(w.projectId, w.minds.garrick, player, [
    NAME,
    FINE,
    "The player's brother Emrys is a watchman.",
    "The player rode in from the coast.",
    "The player prefers the dark porter.",
    "The player asked about the old bridge.",
    "The player paid for a room upstairs.",
    ]);
  await remember(w.projectId, w.minds.garrick, "corwin", [OTHERS, "The player lost a brass compass on the quay."]);
  // The same player id in another project, with a memory of its own.
  await remember(other.projectId, other.minds.garrick, "rosalind", ["The player's name is Elsewhere Rosalind."]);
}, 60_000);
afterAll(() => t.close());

/** A new session's turn through POST /v1/npc/interact, and the text of the prompt llama.cpp was given for it. */
async function turn(world: World, playerId: string, text: string, key: string = world.keys.server) {
  const before = sent.length;
  const r = await t.call("POST", "/v1/npc/interact", { key, body: { text, entityMindId: world.minds.garrick, playerId, memory: { retrieve: true } } });
  const prompts = sent.slice(before).map((m) => m.map((x) => x.content).join("\n"));
  return { status: r.status, body: r.body, prompt: prompts[0] ?? "" };
}

describe("a stored memory in the player's next conversation", () => {
  for (const [i, line] of RECALL_LINES.entries()) {
    test(`"${line}": the player's name memory reaches the prompt, among more memories than the limit`, async () => {
      const r = await turn(w, `rosalind-${i}`, line);
      expect(r.status).toBe(200);
      expect(r.prompt).toContain(NAME);
      // still five memories: the name took the place of the least of the others
      const block = r.prompt.split("[You remember about this player]\n")[1]?.split("\n\n")[0] ?? "";
      expect(block.split("\n")).toHaveLength(5);
      expect(block.split("\n")[0]).toBe(`- ${NAME}`);
      expect(r.prompt).not.toContain("Corwin");
      expect(r.prompt).not.toContain("Elsewhere Rosalind");
    });
  }

  test("the admin preview of a recall line shows the memory in the turn's message, in its own block before the player's line", async () => {
    const r = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, {
      key: admin,
      body: { text: "Do you remember my name?", entityMindId: w.minds.garrick, playerId: "rosalind-preview-check", memory: { retrieve: true } },
    });
    expect(r.status).toBe(200);
    expect(r.body.memories).toEqual([]);
    const again = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, {
      key: admin,
      body: { text: "Do you remember my name?", entityMindId: w.minds.garrick, playerId: "corwin", memory: { retrieve: true } },
    });
    expect(again.status).toBe(200);
    expect(again.body.memories).toContain(OTHERS);
    const last = again.body.prompt.at(-1).content as string;
    expect(last.indexOf(OTHERS)).toBeGreaterThan(-1);
    expect(last.indexOf(OTHERS)).toBeLessThan(last.indexOf("Do you remember my name?"));
    expect(JSON.stringify(again.body.prompt)).not.toContain("Rosalind");
  });
});

describe("one player's memories never reach another's prompt", () => {
  test("another player with the same mind: their own memories only", async () => {
    const r = await turn(w, "corwin", "Do you remember my name?");
    expect(r.status).toBe(200);
    expect(r.prompt).toContain(OTHERS);
    expect(r.prompt).not.toContain("Rosalind");
    expect(r.prompt).not.toContain("seven crowns");
  });
  test("a player with no memories: none in the prompt", async () => {
    const r = await turn(w, "stranger", "Do you remember my name?");
    expect(r.status).toBe(200);
    expect(r.prompt).not.toMatch(/Rosalind|Corwin|seven crowns|remember about/);
  });
  test("the same player id in another project: that project's memories only", async () => {
    const r = await turn(other, "rosalind", "Do you remember my name?");
    expect(r.status).toBe(200);
    expect(r.prompt).toContain("Elsewhere Rosalind");
    expect(r.prompt).not.toContain("Rosalind Tey");
    expect(r.prompt).not.toContain("seven crowns");
  });
  test("another project's key for this project's mind: 404, nothing generated", async () => {
    const before = sent.length;
    const r = await t.call("POST", "/v1/npc/interact", { key: other.keys.server, body: { text: "Do you remember my name?", entityMindId: w.minds.garrick, playerId: "rosalind", memory: { retrieve: true } } });
    expect(r.status).toBe(404);
    expect(sent.length).toBe(before);
  });
  test("a revoked key or none: 401, nothing generated", async () => {
    const before = sent.length;
    const revoked = await turn(w, "rosalind", "Do you remember my name?", w.keys.revokedServer);
    expect(revoked.status).toBe(401);
    const none = await t.call("POST", "/v1/npc/interact", { key: null, body: { text: "Do you remember my name?", entityMindId: w.minds.garrick, playerId: "rosalind", memory: { retrieve: true } } });
    expect(none.status).toBe(401);
    expect(sent.length).toBe(before);
  });
});
