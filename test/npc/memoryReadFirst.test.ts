import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { bigProject } from "../../bench/support/bigProject.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { storeMemories } from "../../src/npc/memory/storeMemories.ts";
import { retrieveMemories } from "../../src/npc/memory/retrieveMemories.ts";
import { updateSettings } from "../../src/projects/settings.ts";

// A turn starts reading the player's memories of the mind before it gathers the rest (under enhanced retrieval a
// pair's first read goes to LanceDB, on its own threads, while the turn's thread works). What the turn shows must be
// what the retrieval alone gives, on the pair's first turn (the group read from LanceDB) and after (ranked in
// memory), and nothing of another project's or another player's. Real SQLite and LanceDB, hashing embedder.
setDefaultTimeout(120_000);

let t: TestApp;
let a: ReturnType<typeof bigProject>;
let b: ReturnType<typeof bigProject>;
let admin: string;
const LINE = "Any news of the missing caravan on the salt road?";

beforeAll(async () => {
  t = await createTestApp();
  a = bigProject(t.app.ctx as never, { minds: 2, documents: 40, name: "A" });
  b = bigProject(t.app.ctx as never, { minds: 2, documents: 40, name: "B" });
  for (;;) {
    const r = (await t.app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
    if (!r || r.indexed === 0) break;
  }
  admin = ensureAdminToken(t.app.db).adminToken;
  const drafts = [
    { text: "The player asked about the missing caravan on the salt road.", importance: 3, topics: ["caravan"] },
    { text: "The player sold a lantern for a good price.", importance: 9, topics: ["trade"] },
    { text: "The player's sister keeps bees by the mill.", importance: 6, topics: ["family"] },
    { text: "The player owes the ferryman two silver coins.", importance: 5, topics: ["debt"] },
    { text: "The player saw smoke over the north gate.", importance: 4, topics: [] },
    { text: "The player fears deep water since childhood.", importance: 7, topics: ["fear"] },
  ];
  await storeMemories(t.app.ctx, { projectId: a.projectId, mindId: a.minds[0], playerId: "ada", drafts });
  // the same player id with another project's mind, and another player with this mind: never shown
  await storeMemories(t.app.ctx, { projectId: b.projectId, mindId: b.minds[0], playerId: "ada", drafts: [{ text: "The player burned the caravan in another world.", importance: 10, topics: ["caravan"] }] });
  await storeMemories(t.app.ctx, { projectId: a.projectId, mindId: a.minds[0], playerId: "bram", drafts: [{ text: "Bram found the missing caravan.", importance: 10, topics: ["caravan"] }] });
});
afterAll(() => t.close());

async function previewMemories(projectId: string, mindId: string, playerId: string): Promise<string[]> {
  const r = await t.call("POST", `/admin/v1/projects/${projectId}/interact-preview`, { key: admin, body: { text: LINE, entityMindId: mindId, playerId, memory: { retrieve: true } } });
  expect(r.status).toBe(200);
  return (r.body as { memories: string[] }).memories;
}

describe("a turn's memories, read while the turn gathers the rest", () => {
  for (const enhanced of [false, true]) {
    test(`${enhanced ? "enhanced" : "default"} retrieval: the pair's first turn and the next show what the retrieval alone gives`, async () => {
      updateSettings(t.app.ctx, a.projectId, { enhancedMemoryRetrieval: enhanced });
      // the turn first: under enhanced retrieval its read of the pair's group is the first (from LanceDB)
      const first = await previewMemories(a.projectId, a.minds[0], "ada");
      const alone = (await retrieveMemories(t.app.ctx, { projectId: a.projectId, mindId: a.minds[0], playerId: "ada", query: LINE, enhanced, limit: 5 })).map((m) => m.text);
      expect(alone).toHaveLength(5);
      if (enhanced) expect(alone[0]).toBe("The player asked about the missing caravan on the salt road.");
      else expect(alone[0]).toBe("The player sold a lantern for a good price.");
      const again = await previewMemories(a.projectId, a.minds[0], "ada");
      expect(first).toEqual(alone);
      expect(again).toEqual(alone);
      expect(first.join(" ")).not.toContain("another world");
      expect(first.join(" ")).not.toContain("Bram");
    });
  }

  test("another project's mind with the same player id shows that project's memory only", async () => {
    updateSettings(t.app.ctx, b.projectId, { enhancedMemoryRetrieval: true });
    expect(await previewMemories(b.projectId, b.minds[0], "ada")).toEqual(["The player burned the caravan in another world."]);
  });
});
