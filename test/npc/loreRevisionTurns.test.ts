import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { loreRevision } from "../../src/lore/documents/documentStore.ts";
import { readSelection } from "../../src/npc/sharedLore/sharedLoreStore.ts";

// Whole turns (a real tiny model generating) and the mind-warm job write sessions, retrieval counts, credits and
// the shared-lore choice, never a document: the project's lore revision must not move, or every turn would make
// every mind's shared lore again.
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  await t.app.scheduler.trigger("indexer");
});
afterAll(() => t.close());

test("interact turns and the mind-warm job leave the lore revision and the stored choice alone", async () => {
  const rev = loreRevision(t.app.db, w.projectId);
  const say = (playerId: string, text: string) => t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: { text, entityMindId: w.minds.garrick, playerId } });
  const first = await say("p-1", "Hello there.");
  expect(first.status).toBe(200);
  const chosen = readSelection(t.app.db, w.projectId, w.minds.garrick);
  expect(chosen).not.toBeNull();
  for (const [p, text] of [["p-1", "What do you serve?"], ["p-2", "Who founded the town?"], ["p-2", "And the bridge?"]]) {
    expect((await say(p, text)).status).toBe(200);
  }
  await t.app.scheduler.trigger("mind-warm");
  await t.app.scheduler.trigger("mind-warm");
  expect(loreRevision(t.app.db, w.projectId)).toBe(rev);
  expect(readSelection(t.app.db, w.projectId, w.minds.garrick)).toEqual(chosen);
});
