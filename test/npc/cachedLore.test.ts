import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { capturePrompts } from "../support/capturePrompts.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { createTag } from "../../src/lore/tags/writeTags.ts";
import { writeStateSchema } from "../../src/state/stateService.ts";
import type { ChatMessage } from "../../src/llm/types.ts";

/**
 * A small mind's whole lore in its cached prefix, through POST /v1/npc/interact on real llama.cpp (a tiny
 * random-weight GGUF: what it says does not matter, what it was handed does). The system message is the part the
 * mind's KV prefix snapshot keeps warm for every player; the turn's user message carries only what the prefix does
 * not hold. The prefix never holds a document outside
 * the mind's tags, a condition-gated or timed one (even while its condition holds), or another project's.
 */

// real llama.cpp on 2 shared cores
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
const GATED = "GATEDMARK the brewers' guild pays the watch to look away on market nights.";
const TIMED = "TIMEDMARK the cellar door sticks after rain.";
const OUTSIDE = "OUTSIDEMARK the smugglers signal with a green lamp.";
const FOREIGN = "FOREIGNMARK the other town's tavern serves only cider.";
let t: TestApp;
let w: World;
let other: World;
let big: string;
const prompts: ChatMessage[][] = [];

/** One real interaction; returns what the model was handed (system message, then the rest). */
async function interact(playerId: string, text: string, mind = w.minds.garrick, key = w.keys.server) {
  const before = prompts.length;
  const r = await t.call("POST", "/v1/npc/interact", { key, body: { text, entityMindId: mind, playerId } });
  return { status: r.status, body: r.body, prompt: prompts.length > before ? prompts[before] : null };
}
const system = (p: ChatMessage[] | null) => p![0].content;
const turnText = (p: ChatMessage[] | null) => p!.slice(1).map((m) => m.content).join("\n");
const whole = (p: ChatMessage[] | null) => p!.map((m) => m.content).join("\n");
/** The texts of every chunk of these documents, from SQLite. */
const chunkTexts = (where: string, ...args: string[]) =>
  t.app.db.query<{ content: string }, string[]>(`SELECT c.content FROM chunks c JOIN documents d ON d.id = c.document_id WHERE ${where}`).all(...args).map((r) => r.content);

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  const ctx = t.app.ctx;
  writeStateSchema(ctx, w.projectId, { stateKeys: { "market.night": { type: "boolean", default: true } } });
  // In Garrick's tags, but gated: a condition that holds, and a timer. Neither may enter the shared prefix.
  createDocument(ctx, w.projectId, { name: "Guild Payments", content: GATED, tags: ["tavern"], when: "market.night" });
  createDocument(ctx, w.projectId, { name: "Cellar Door", content: TIMED, tags: ["tavern"], cooldown: 3 });
  createDocument(ctx, w.projectId, { name: "Green Lamp", content: OUTSIDE, tags: ["smugglers"] });
  createDocument(ctx, other.projectId, { name: "Cider House", content: FOREIGN, tags: ["tavern"] });
  // A mind whose lore is far over the shared budget: its prefix holds a part, retrieval brings the rest.
  createTag(ctx, w.projectId, { name: "ledger", color: null });
  createDocument(ctx, w.projectId, { name: "Barge Ledger", content: Array.from({ length: 80 }, (_, i) => `Ledger line ${i}: the barge Heron${i} carried ${i + 3} barrels of salt fish upriver.`).join("\n\n"), tags: ["ledger"] });
  big = createMind(ctx, w.projectId, { entityName: "Clerk Mott", personality: "Dry and exact.", knowledgeTags: ["ledger"] }).id;
  await t.app.scheduler.trigger("indexer");
  capturePrompts(t.app, prompts);
}, 300_000);
afterAll(() => t.close());

describe("a small mind: its whole lore in the cached prefix", () => {
  test("the system message holds every chunk of the mind's ungated documents, and is the same for every player", async () => {
    const a = await interact("small-a", "What do you serve?");
    const b = await interact("small-b", "Who founded the town?");
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const lore = chunkTexts("d.project_id = ? AND d.key IN ('menu', 'history')", w.projectId);
    expect(lore.length).toBeGreaterThanOrEqual(2);
    for (const c of lore) expect(system(a.prompt)).toContain(c.trim());
    expect(system(a.prompt)).toBe(system(b.prompt));
  });

  test("a newcomer's turn carries only the player's line: nothing the prefix already holds comes again", async () => {
    const first = await interact("newcomer", "What does Garrick brew? A dark porter?");
    expect(system(first.prompt)).toContain("About The Rusty Tankard Menu: Ale, mutton stew");
    expect(turnText(first.prompt)).not.toContain("Ale, mutton stew");
  });

  test("never in the prefix: a gated document whose condition holds, a timed one, one outside the mind's tags, another project's", async () => {
    for (const [i, q] of ["Who pays the watch on market nights? guild payments", "Does the cellar door stick after rain?", "How do the smugglers signal? green lamp", "Does the tavern serve cider?"].entries()) {
      const r = await interact(`leak-${i}`, q);
      expect(r.status).toBe(200);
      for (const mark of ["GATEDMARK", "TIMEDMARK", "OUTSIDEMARK", "FOREIGNMARK"]) expect(system(r.prompt)).not.toContain(mark);
      for (const mark of ["OUTSIDEMARK", "FOREIGNMARK"]) expect(whole(r.prompt)).not.toContain(mark);
    }
    // the gated one reaches the turn that asks while its condition holds: through retrieval, in the user message
    const asked = await interact("gated", "Who pays the watch on market nights? brewers guild payments");
    expect(turnText(asked.prompt)).toContain("GATEDMARK");
    expect(system(asked.prompt)).not.toContain("GATEDMARK");
  });

  test("another project's key or a revoked key reaches no mind's prefix", async () => {
    const wrong = await interact("x-project", "What do you serve?", w.minds.garrick, other.keys.server);
    expect(wrong.status).toBe(404);
    expect(wrong.prompt).toBeNull();
    const revoked = await interact("revoked", "What do you serve?", w.minds.garrick, w.keys.revokedServer);
    expect(revoked.status).toBe(401);
    expect(revoked.prompt).toBeNull();
  });
});

describe("a big mind: a part of its lore in the prefix, the rest by retrieval", () => {
  test("the system message holds fewer than all its chunks; the asked-for chunk reaches the prompt", async () => {
    const r = await interact("big", "Which barge carried 39 barrels? Heron36", big);
    expect(r.status).toBe(200);
    const lore = chunkTexts("d.project_id = ? AND d.name = 'Barge Ledger'", w.projectId);
    const inPrefix = lore.filter((c) => system(r.prompt).includes(c.trim()));
    expect(lore.length).toBeGreaterThan(inPrefix.length + 1);
    expect(whole(r.prompt)).toContain("Heron36");
  });
});
