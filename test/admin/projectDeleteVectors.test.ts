import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";

// Deleting a project over the admin API removes its vectors too: its lore chunks and its players' memories in
// LanceDB (a deleted project must leave no player's memory behind), and nothing of the project beside it.
// Real SQLite, real LanceDB, the hashing embedder.
setDefaultTimeout(120_000);

let t: TestApp;
let doomed: World;
let kept: World;
let admin: string;

const lance = async (table: "chunks" | "memories", projectId: string) => {
  const g = t.app.ctx.vectors.activeGeneration();
  return (await g[table].query().where(`projectId = '${projectId}'`).select(["id"]).toArray()).length;
};
const remember = (w: World, playerId: string) =>
  t.call("POST", "/v1/events", { key: w.keys.server, body: { type: "trade", description: "The player sold barrels of salt at the harbour", playerId, witnesses: [w.minds.garrick], importance: 4 } });

beforeAll(async () => {
  t = await createTestApp({ embeddingModel: "hashing" }, { loadModel: false });
  doomed = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  kept = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  // the documents through the real indexer: their chunks in LanceDB
  await t.app.scheduler.trigger("indexer");
  admin = ensureAdminToken(t.app.db).adminToken;
});
afterAll(() => t.close());

test("DELETE /admin/v1/projects/{id}: the project's chunks and memories leave LanceDB; the other project's stay", async () => {
  for (const w of [doomed, kept]) expect((await remember(w, "same-player")).status).toBe(201);
  await t.app.ctx.vectors.appends.flush();
  for (const w of [doomed, kept]) {
    expect(await lance("memories", w.projectId)).toBeGreaterThan(0);
    expect(await t.app.ctx.vectors.countChunks(w.projectId)).toBeGreaterThan(0);
  }
  const keptBefore = { memories: await lance("memories", kept.projectId), chunks: await t.app.ctx.vectors.countChunks(kept.projectId) };
  const r = await t.call("DELETE", `/admin/v1/projects/${doomed.projectId}?confirm=${doomed.projectId}`, { key: admin });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ id: doomed.projectId, deleted: true });
  expect(await lance("memories", doomed.projectId)).toBe(0);
  expect(await lance("chunks", doomed.projectId)).toBe(0);
  expect(await t.app.ctx.vectors.countChunks(doomed.projectId)).toBe(0);
  expect({ memories: await lance("memories", kept.projectId), chunks: await t.app.ctx.vectors.countChunks(kept.projectId) }).toEqual(keptBefore);
  // the kept project still answers from its lore
  const lore = await t.call("GET", "/v1/lore/minds", { key: kept.keys.editor });
  expect(lore.status).toBe(200);
});
