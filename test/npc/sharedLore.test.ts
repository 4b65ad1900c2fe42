import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { createDocument, updateDocument } from "../../src/lore/documents/writeDocuments.ts";
import { updateMind } from "../../src/lore/minds/writeMinds.ts";
import { prepareTurn } from "../../src/npc/prepareTurn.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { systemPrompt } from "../../src/npc/prompt/systemPrompt.ts";
import { loadMindProfile } from "../../src/npc/mindProfile.ts";
import { selectSharedLore, sharedLoreBudget } from "../../src/npc/sharedLore/sharedLore.ts";
import { deleteSelections, readSelection, recordHits } from "../../src/npc/sharedLore/sharedLoreStore.ts";
import { LORE_NOTE_OVERHEAD, tokenCounter } from "../../src/npc/tokenBudget.ts";

// The shared-lore level of a mind's static prompt: what it holds, how scoping stays exact,
// how a turn's own lore avoids repeating it. No model: prepareTurn counts tokens by its estimate.
setDefaultTimeout(60_000);

let t: TestApp;
let w: World;
let admin: string;
const turn = (playerId: string, text: string, extra: Record<string, unknown> = {}, mind = w.minds.garrick) =>
  prepareTurn(t.app.ctx, w.projectId, validateInteract({ text, entityMindId: mind, playerId, ...extra }));
/** Every chunk text of the project with its tags, from SQLite. */
const chunks = () =>
  t.app.db
    .query<{ id: string; content: string; tags: string }, [string]>(
      "SELECT c.id, c.content, c.tags FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.project_id = ? AND d.status = 'COMPLETED'",
    )
    .all(w.projectId)
    .map((r) => ({ id: r.id, content: r.content, tags: JSON.parse(r.tags) as string[] }));

beforeAll(async () => {
  t = await createTestApp({ contextSize: 2048, maxReplyTokens: 64 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  await t.app.scheduler.trigger("indexer");
  admin = ensureAdminToken(t.app.db).adminToken;
});
afterAll(() => t.close());

describe("what the shared level holds", () => {
  test("all the mind's visible lore when it fits, in document order, after the system text; nothing it may not see", async () => {
    const p = await turn("p-all", "Tell me about the town.");
    const visible = chunks().filter((c) => c.tags.some((x) => ["tavern", "town-history"].includes(x)));
    expect(visible.length).toBeGreaterThanOrEqual(2);
    expect(p.sharedLore.map((l) => l.chunkId).sort()).toEqual(visible.map((c) => c.id).sort());
    const names = p.sharedLore.map((l) => l.documentName);
    expect(names).toEqual([...names].sort());
    expect(new Set(names)).toEqual(new Set(["History of Thornhaven", "The Rusty Tankard Menu"]));
    const system = p.messages[0].content;
    expect(system.startsWith(systemPrompt(loadMindProfile(t.app.ctx, w.projectId, w.minds.garrick)))).toBe(true);
    expect(system).toContain("[Lore]\nAbout History of Thornhaven: Thornhaven was founded by river traders.");
    expect(system).not.toContain("tunnel runs from the cellar");
    expect(system).not.toContain("weather in spring");
    // The turn's own retrieval adds nothing the static part already carries.
    expect(p.newLore).toEqual([]);
    expect(p.messages[1].content).not.toContain("[Lore]");
    expect(p.retrieved.length).toBeGreaterThan(0);
  });

  test("each mind shares only its own lore: Elena's static prompt holds the tunnel, Garrick's never", async () => {
    const e = await turn("p-elena", "Where does the tunnel go?", {}, w.minds.elena);
    expect(e.messages[0].content).toContain("A tunnel runs from the cellar to the docks.");
    expect(e.sharedLore.every((l) => l.tags.includes("smugglers"))).toBe(true);
    const g = await turn("p-garrick-tunnel", "Where does the smugglers' tunnel go? cellar docks");
    expect(g.messages.map((m) => m.content).join("\n")).not.toContain("tunnel runs");
  });

  test("the prompt is deterministic: the same static text turn after turn, player after player", async () => {
    const a = await turn("p-det-1", "Hello there.");
    const b = await turn("p-det-2", "What do you serve?");
    expect(a.messages[0].content).toBe(b.messages[0].content);
    // Selecting again from unchanged lore and counts gives the same chunks.
    const before = readSelection(t.app.db, w.projectId, w.minds.garrick)!.chunkIds;
    expect(selectSharedLore(t.app.ctx, w.projectId, loadMindProfile(t.app.ctx, w.projectId, w.minds.garrick))).toEqual(before);
  });

  test("sharedLoreTokens = 0 turns the level off: the system message is the mind's system text and the first turn brings its lore", async () => {
    const saved = t.app.config.sharedLoreTokens;
    t.app.config.sharedLoreTokens = 0;
    try {
      const p = await turn("p-off", "Who founded Thornhaven? river traders");
      expect(p.sharedLore).toEqual([]);
      expect(p.messages[0].content).toBe(systemPrompt(loadMindProfile(t.app.ctx, w.projectId, w.minds.garrick)));
      expect(p.newLore.length).toBeGreaterThan(0);
    } finally {
      t.app.config.sharedLoreTokens = saved;
    }
  });
});

describe("a budget smaller than the lore: the most retrieved chunks", () => {
  test("fits the budget, prefers what retrieval found most for this mind, and the turn adds the rest of its hits", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(createDocument(t.app.ctx, w.projectId, { name: `Ledger ${i}`, content: `Ledger page ${i}: ${"barrels of porter sold to the river barge crews ".repeat(40)}`, tags: ["tavern"] }).id);
    }
    await t.app.scheduler.trigger("indexer");
    const budget = sharedLoreBudget(t.app.config);
    const mind = loadMindProfile(t.app.ctx, w.projectId, w.minds.garrick);
    const count = tokenCounter(t.app.ctx);
    const cost = (ids: string[]) => {
      const byId = new Map(chunks().map((c) => [c.id, c]));
      return ids.reduce((n, id) => n + count(byId.get(id)!.content) + LORE_NOTE_OVERHEAD, 0);
    };
    const first = selectSharedLore(t.app.ctx, w.projectId, mind);
    expect(cost(first)).toBeLessThanOrEqual(budget);
    expect(first.length).toBeLessThan(chunks().filter((c) => c.tags.some((x) => mind.knowledgeTags.includes(x))).length);
    // Ledger 5's chunk is the one retrieval keeps finding for Garrick: the next selection carries it.
    const ledger5 = t.app.db.query<{ id: string }, [string]>("SELECT id FROM chunks WHERE document_id = ?").get(ids[5])!.id;
    expect(first).not.toContain(ledger5);
    for (let i = 0; i < 5; i++) recordHits(t.app.db, w.projectId, w.minds.garrick, [ledger5]);
    const next = selectSharedLore(t.app.ctx, w.projectId, mind);
    expect(next).toContain(ledger5);
    expect(cost(next)).toBeLessThanOrEqual(budget);
    const p = await turn("p-ledger", "How many barrels of porter were sold to the barge crews? Ledger page");
    expect(p.sharedLore.map((l) => l.chunkId)).toEqual(next);
    for (const l of p.newLore) expect(next).not.toContain(l.chunkId);
  });
});

describe("scoping stays exact", () => {
  test("activeKnowledgeTags that leave a shared chunk out: the turn goes without the shared level, and no closed chunk is in its prompt", async () => {
    deleteSelections(t.app.db, w.projectId);
    const p = await turn("p-narrow", "And the menu? porter", { activeKnowledgeTags: ["tavern"] });
    expect(p.sharedLore).toEqual([]);
    const prompt = p.messages.map((m) => m.content).join("\n");
    expect(prompt.startsWith(systemPrompt(loadMindProfile(t.app.ctx, w.projectId, w.minds.garrick)))).toBe(true);
    for (const c of chunks().filter((c) => !c.tags.includes("tavern"))) expect(prompt).not.toContain(c.content);
    expect(p.newLore.length).toBeGreaterThan(0);
    for (const l of p.newLore) expect(l.tags).toContain("tavern");
  });

  test("activeKnowledgeTags that open every shared chunk keep the level", async () => {
    const full = await turn("p-open-a", "Hello.");
    const p = await turn("p-open-b", "Hello.", { activeKnowledgeTags: ["tavern", "town-history"] });
    expect(p.sharedLore.length).toBeGreaterThan(0);
    expect(p.messages[0].content).toBe(full.messages[0].content);
  });

  test("the mind loses a tag: its next turn's shared lore drops that lore at once (no background step needed)", async () => {
    const before = await turn("p-tags", "Hello.");
    expect(before.messages[0].content).toContain("founded by river traders");
    updateMind(t.app.ctx, w.projectId, w.minds.garrick, { knowledgeTags: ["tavern"] });
    try {
      const after = await turn("p-tags-2", "Hello.");
      expect(after.messages[0].content).not.toContain("founded by river traders");
      expect(after.sharedLore.length).toBeGreaterThan(0);
      for (const l of after.sharedLore) expect(l.tags).toContain("tavern");
    } finally {
      updateMind(t.app.ctx, w.projectId, w.minds.garrick, { knowledgeTags: ["tavern", "town-history"] });
    }
  });

  test("a shared document re-tagged out of the mind's reach leaves its prompt; an edited one shows its new text", async () => {
    deleteSelections(t.app.db, w.projectId);
    const first = await turn("p-doc", "Hello.");
    expect(first.messages[0].content).toContain("Garrick brews a dark porter.");
    updateDocument(t.app.ctx, w.projectId, w.documents.menu, { tags: ["smugglers"] });
    await t.app.scheduler.trigger("indexer");
    const moved = await turn("p-doc-2", "Hello.");
    expect(moved.messages[0].content).not.toContain("Garrick brews a dark porter.");
    updateDocument(t.app.ctx, w.projectId, w.documents.menu, { tags: ["tavern"], content: "Ale, mutton stew and honey bread.\n\nGarrick brews a pale ale now." });
    await t.app.scheduler.trigger("indexer");
    // No step between: the stored choice was made from the lore before the edit, so the next read makes it again.
    const edited = await turn("p-doc-3", "Hello.");
    expect(edited.messages[0].content).toContain("Garrick brews a pale ale now.");
  });

  test("another project's lore and selection are never used", async () => {
    const other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
    await t.app.scheduler.trigger("indexer");
    const p = await turn("p-other", "Hello.");
    const mine = new Set(chunks().map((c) => c.id));
    for (const l of p.sharedLore) expect(mine.has(l.chunkId)).toBe(true);
    const q = await prepareTurn(t.app.ctx, other.projectId, validateInteract({ text: "Hello.", entityMindId: other.minds.garrick, playerId: "p-other" }));
    for (const l of q.sharedLore) expect(mine.has(l.chunkId)).toBe(false);
  });
});

describe("the trace shows it", () => {
  test("the admin preview's prompt is the exact prompt and its lore lists the shared chunks (turn: shared)", async () => {
    const body = { text: "Hello there.", entityMindId: w.minds.garrick, playerId: "p-preview" };
    const r = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, { key: admin, body });
    expect(r.status).toBe(200);
    const p = await prepareTurn(t.app.ctx, w.projectId, validateInteract(body));
    expect(r.body.prompt).toEqual(p.messages);
    const shared = r.body.lore.filter((l: any) => l.turn === "shared");
    expect(shared.map((l: any) => `${l.documentName}#${l.chunkIndex}`)).toEqual(p.sharedLore.map((l) => `${l.documentName}#${l.chunkIndex}`));
    expect(shared.length).toBeGreaterThan(0);
    for (const l of shared) expect(l.score).toBeNull();
  });
});
