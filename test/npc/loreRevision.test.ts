import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { createDocument, deleteDocument, updateDocument } from "../../src/lore/documents/writeDocuments.ts";
import { updateMind } from "../../src/lore/minds/writeMinds.ts";
import { loreRevision } from "../../src/lore/documents/documentStore.ts";
import { prepareTurn } from "../../src/npc/prepareTurn.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { readSelection } from "../../src/npc/sharedLore/sharedLoreStore.ts";
import { countChunks } from "../../src/lore/documents/chunkSearchStore.ts";
import { deleteProject } from "../../src/projects/projectService.ts";
import { migrate } from "../../src/db/migrate.ts";

// A mind's shared-lore choice is checked against the project's lore revision (migration 034), not against an
// aggregate of every document: every kind of lore change must still reach the next turn, a turn must never move
// the revision itself (it would make every turn choose again), and another project's writes must not touch it.
setDefaultTimeout(60_000);

let t: TestApp;
let w: World;
let admin: string;
const turn = (playerId: string, text = "Hello.", mind = w.minds.garrick) =>
  prepareTurn(t.app.ctx, w.projectId, validateInteract({ text, entityMindId: mind, playerId }));
const sharedText = async (playerId: string) => (await turn(playerId)).messages[0].content;
const index = () => t.app.scheduler.trigger("indexer");

beforeAll(async () => {
  t = await createTestApp({ contextSize: 2048, maxReplyTokens: 64 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  await index();
  admin = ensureAdminToken(t.app.db).adminToken;
});
afterAll(() => t.close());

describe("the lore revision moves with every document write, and only then", () => {
  test("create, index, edit, gate-only edit, delete each move it; turns, previews and reads do not", async () => {
    const seen = [loreRevision(t.app.db, w.projectId)];
    const moved = () => {
      const r = loreRevision(t.app.db, w.projectId);
      expect(seen).not.toContain(r);
      seen.push(r);
    };
    const id = createDocument(t.app.ctx, w.projectId, { name: "Revision notes", content: "The bell rings at dusk.", tags: ["tavern"] }).id;
    moved();
    await index();
    moved();
    updateDocument(t.app.ctx, w.projectId, id, { content: "The bell rings at dawn." });
    moved();
    await index();
    moved();
    updateDocument(t.app.ctx, w.projectId, id, { when: "player.gold > 5" });
    moved();
    deleteDocument(t.app.ctx, w.projectId, id);
    moved();

    const still = loreRevision(t.app.db, w.projectId);
    await turn("p-rev");
    await turn("p-rev", "And the porter?");
    const preview = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, { key: admin, body: { text: "Hello.", entityMindId: w.minds.garrick, playerId: "p-rev-2" } });
    expect(preview.status).toBe(200);
    expect((await t.call("GET", `/v1/lore/documents/${w.documents.menu}`, { key: w.keys.editor })).status).toBe(200);
    expect(loreRevision(t.app.db, w.projectId)).toBe(still);
  });

  test("another project's document writes leave this project's revision and its minds' choices alone", async () => {
    await turn("p-scope");
    const rev = loreRevision(t.app.db, w.projectId);
    const chosen = readSelection(t.app.db, w.projectId, w.minds.garrick)!;
    const other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
    await index();
    createDocument(t.app.ctx, other.projectId, { name: "Far away", content: "Nothing here.", tags: ["tavern"] });
    await index();
    expect(loreRevision(t.app.db, w.projectId)).toBe(rev);
    t.clock.advance(60_000);
    await turn("p-scope-2");
    // not chosen again: the stored choice (its time included) is the one made before
    expect(readSelection(t.app.db, w.projectId, w.minds.garrick)).toEqual(chosen);
  });
});

describe("the next turn sees every lore change", () => {
  test("a new document in the mind's tags enters its shared lore once indexed", async () => {
    expect(await sharedText("p-new")).not.toContain("cellar holds forty casks");
    const id = createDocument(t.app.ctx, w.projectId, { name: "Cellar", content: "The cellar holds forty casks.", tags: ["tavern"] }).id;
    await index();
    expect(await sharedText("p-new-2")).toContain("The cellar holds forty casks.");
    deleteDocument(t.app.ctx, w.projectId, id);
    expect(await sharedText("p-new-3")).not.toContain("cellar holds forty casks");
  });

  test("a condition removed from a document (no re-index) brings it into the shared lore at the next turn", async () => {
    const id = createDocument(t.app.ctx, w.projectId, { name: "Back room", content: "Dice games run in the back room.", tags: ["tavern"], when: "player.gold > 5" } as never).id;
    await index();
    // gated lore never enters the shared level (it depends on each player's state)
    expect(await sharedText("p-gate")).not.toContain("Dice games");
    updateDocument(t.app.ctx, w.projectId, id, { when: null } as never);
    expect(await sharedText("p-gate-2")).toContain("Dice games run in the back room.");
    deleteDocument(t.app.ctx, w.projectId, id);
  });

  test("a tag's document re-tagged into the mind's reach, and a mind given a tag, both show at the next turn", async () => {
    expect(await sharedText("p-tag")).not.toContain("tunnel runs");
    updateDocument(t.app.ctx, w.projectId, w.documents.tunnel, { tags: ["smugglers", "tavern"] });
    await index();
    expect(await sharedText("p-tag-2")).toContain("A tunnel runs from the cellar to the docks.");
    updateDocument(t.app.ctx, w.projectId, w.documents.tunnel, { tags: ["smugglers"] });
    await index();
    expect(await sharedText("p-tag-3")).not.toContain("tunnel runs");
    updateMind(t.app.ctx, w.projectId, w.minds.garrick, { knowledgeTags: ["tavern", "town-history", "smugglers"] });
    try {
      expect(await sharedText("p-tag-4")).toContain("A tunnel runs from the cellar to the docks.");
    } finally {
      updateMind(t.app.ctx, w.projectId, w.minds.garrick, { knowledgeTags: ["tavern", "town-history"] });
    }
    expect(await sharedText("p-tag-5")).not.toContain("tunnel runs");
  });
});

describe("the chunk total the common-word cut-off reads", () => {
  test("is the chunks table's count through indexing, re-indexing, deletes and a project's deletion", async () => {
    const counted = () => t.app.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM chunks").get()!.n;
    const same = () => expect(countChunks(t.app.db)).toBe(counted());
    same();
    expect(counted()).toBeGreaterThan(0);
    const id = createDocument(t.app.ctx, w.projectId, { name: "Long", content: Array.from({ length: 8 }, (_, i) => `Part ${i}. ${"The river runs past the mill. ".repeat(30)}`).join("\n\n"), tags: ["tavern"] }).id;
    await index();
    same();
    updateDocument(t.app.ctx, w.projectId, id, { content: "Short now." });
    await index();
    same();
    deleteDocument(t.app.ctx, w.projectId, id);
    same();
    const other = buildWorld(t.app.ctx as any, "Gone soon", { index: "none" });
    await index();
    same();
    const before = counted();
    deleteProject(t.app.ctx, other.projectId);
    expect(counted()).toBeLessThan(before);
    same();
    // a turn and a read leave it alone
    await turn("p-total");
    same();
  });
});

describe("migration 034 on a data directory that already has lore", () => {
  test("seeds every project's revision and the chunk total from what is there", async () => {
    const db = t.app.db;
    // back to the schema before 034, with this test's lore in it
    db.exec(`DROP TRIGGER documents_revision_insert; DROP TRIGGER documents_revision_update; DROP TRIGGER documents_revision_delete;
      DROP TRIGGER chunks_total_insert; DROP TRIGGER chunks_total_delete; DROP TABLE lore_revisions; DROP TABLE chunk_total;
      DROP INDEX documents_project_name; DELETE FROM schema_migrations WHERE version = 34;`);
    expect(migrate(db)).toEqual([34]);
    const projects = db.query<{ id: string }, []>("SELECT id FROM projects").all();
    expect(projects.length).toBeGreaterThan(0);
    for (const p of projects) expect(loreRevision(db, p.id)).toBe(1);
    expect(countChunks(db)).toBe(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM chunks").get()!.n);
    // and it moves from there
    createDocument(t.app.ctx, w.projectId, { name: "After the upgrade", content: "New.", tags: ["tavern"] });
    expect(loreRevision(db, w.projectId)).toBe(2);
  });
});
