import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { bigProject } from "../../bench/support/bigProject.ts";
import { memoryRows, topUpPlayerMemories, writePlayerMemories } from "../../bench/support/playerMemories.ts";
import { projectFilter } from "../../src/vectors/filters.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";

// A big-world bench's world topped up with more players (bench/preview-overhead.ts --from): its builder writes
// players' memories to SQLite and LanceDB, so the top-up must not write the old players' rows again (it failed on
// memories.id), while a world built when the builder wrote LanceDB alone gets their SQLite rows. Real SQLite and
// LanceDB, hashing embedder.
setDefaultTimeout(120_000);

let t: TestApp;
const SENTENCES = ["the ferryman owes the mill", "a lantern by the north gate", "salt on the river road", "the bell rang at the chapel"];

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const lanceRows = (projectId: string) => t.app.ctx.vectors.activeGeneration().memories.countRows(projectFilter(projectId));

test("a world whose players' memories are in both stores tops up with the new players' alone", async () => {
  const w = bigProject(t.app.ctx as never, { minds: 6, documents: 4, name: "Both" });
  expect(await writePlayerMemories(t.app.ctx, w.projectId, w.minds, 20, 5, SENTENCES)).toBe(200);
  // what the top-up did before: the old players' SQLite rows again
  await expect(writePlayerMemories(t.app.ctx, w.projectId, w.minds, 20, 5, SENTENCES, { to: ["sqlite"] })).rejects.toThrow(/UNIQUE/);
  const r = await topUpPlayerMemories(t.app.ctx, w.projectId, w.minds, 20, 40, 5, SENTENCES);
  expect(r).toEqual({ oldRows: 0, written: 200 });
  expect(memoryRows(t.app.ctx, w.projectId)).toBe(400);
  expect(await lanceRows(w.projectId)).toBe(400);
  const players = t.app.db.query<{ n: number }, [string]>("SELECT COUNT(DISTINCT player_id) AS n FROM memories WHERE project_id = ?").get(w.projectId)!.n;
  expect(players).toBe(40);
});

test("a world whose old players' memories are in LanceDB alone gets their SQLite rows, then the new players' in both", async () => {
  const w = bigProject(t.app.ctx as never, { minds: 6, documents: 4, name: "Lance only" });
  await writePlayerMemories(t.app.ctx, w.projectId, w.minds, 20, 5, SENTENCES, { to: ["lance"] });
  expect(memoryRows(t.app.ctx, w.projectId)).toBe(0);
  const r = await topUpPlayerMemories(t.app.ctx, w.projectId, w.minds, 20, 40, 5, SENTENCES);
  expect(r).toEqual({ oldRows: 200, written: 200 });
  expect(memoryRows(t.app.ctx, w.projectId)).toBe(400);
  expect(await lanceRows(w.projectId)).toBe(400);
});

test("a world that is neither, or a top-up to no more players, is refused before anything is written", async () => {
  const w = bigProject(t.app.ctx as never, { minds: 6, documents: 4, name: "Partial" });
  await writePlayerMemories(t.app.ctx, w.projectId, w.minds, 10, 5, SENTENCES);
  await expect(topUpPlayerMemories(t.app.ctx, w.projectId, w.minds, 20, 40, 5, SENTENCES)).rejects.toThrow(/neither none nor/);
  await expect(topUpPlayerMemories(t.app.ctx, w.projectId, w.minds, 10, 10, 5, SENTENCES)).rejects.toThrow(/already/);
  expect(memoryRows(t.app.ctx, w.projectId)).toBe(100);
  expect(await lanceRows(w.projectId)).toBe(100);
});
