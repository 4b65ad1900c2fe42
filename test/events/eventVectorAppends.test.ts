import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { createTestApp, tempDir, testConfig, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { setRateLimits, RATE_LIMIT_MAX } from "../../src/ratelimit/rateLimitSettings.ts";
import { retrieveMemories } from "../../src/npc/memory/retrieveMemories.ts";
import type { AppendTimer } from "../../src/vectors/MemoryAppends.ts";
import { App } from "../../src/app/App.ts";
import { VectorStore } from "../../src/vectors/VectorStore.ts";
import { HashingEmbedder } from "../../src/vectors/HashingEmbedder.ts";

// An event's memory vectors are appended to LanceDB a window after the reply, several writes' in one commit
// (src/vectors/MemoryAppends.ts). Real SQLite, real LanceDB, the hashing embedder, requests through the HTTP app.
// The window is ended by the test (an injected timer), never by waiting: what must hold is the order of the
// table's operations, not their timing.
setDefaultTimeout(120_000);

/** A timer the test fires: each window's end waits until `end()`. */
function manualTimer() {
  const windows: { fn: () => void; live: boolean }[] = [];
  const timer: AppendTimer = (fn) => {
    const w = { fn, live: true };
    windows.push(w);
    return () => {
      w.live = false;
    };
  };
  return {
    timer,
    /** windows started and not yet ended or cancelled */
    open: () => windows.filter((w) => w.live).length,
    end: () => {
      for (const w of windows.splice(0)) if (w.live) w.fn();
    },
  };
}

/** Counts the LanceDB commits of the memories table's appends and merges (the calls go through unchanged). */
function countCommits(app: App) {
  const table = app.ctx.vectors.activeGeneration().memories;
  const n = { add: 0, merge: 0, delete: 0 };
  const add = table.add.bind(table);
  const merge = table.mergeInsert.bind(table);
  const del = table.delete.bind(table);
  table.add = ((...a: Parameters<typeof add>) => (n.add++, add(...a))) as typeof table.add;
  table.mergeInsert = ((...a: Parameters<typeof merge>) => (n.merge++, merge(...a))) as typeof table.mergeInsert;
  table.delete = ((...a: Parameters<typeof del>) => (n.delete++, del(...a))) as typeof table.delete;
  return n;
}

/** The memories LanceDB holds now, read from the table itself (no flush of the queue). */
async function lanceIds(app: App, where?: string): Promise<string[]> {
  const q = app.ctx.vectors.activeGeneration().memories.query().select(["id"]);
  const rows = (await (where ? q.where(where) : q).toArray()) as { id: string }[];
  return rows.map((r) => r.id).sort();
}

const sqliteIds = (app: App, playerId: string) =>
  (app.db.query("SELECT id FROM memories WHERE player_id = ? ORDER BY id").all(playerId) as { id: string }[]).map((r) => r.id);
const queuedIds = (app: App) => (app.db.query("SELECT memory_id FROM memory_vector_queue ORDER BY memory_id").all() as { memory_id: string }[]).map((r) => r.memory_id);

let t: TestApp;
let w: World;
let other: World;
let admin: string;
const clock = manualTimer();
let n = 0;

const event = (world: World, playerId: string, mind: string, description = `The player sold ${++n} barrels of salt at the harbour`) =>
  t.call("POST", "/v1/events", { key: world.keys.server, body: { type: "trade", description, playerId, witnesses: [mind], importance: 4 } });

beforeAll(async () => {
  t = await createTestApp({ embeddingModel: "hashing", memoryAppendWindowMs: 100, memoryAppendRows: 50 }, { loadModel: false, appendTimer: clock.timer });
  w = buildWorld(t.app.ctx as any, "Thornhaven");
  other = buildWorld(t.app.ctx as any, "Elsewhere");
  admin = ensureAdminToken(t.app.db).adminToken;
  for (const p of [w.projectId, other.projectId]) setRateLimits(t.app.ctx, p, { perPlayerPerMinute: RATE_LIMIT_MAX, perProjectPerMinute: RATE_LIMIT_MAX });
});
afterAll(() => t.close());

describe("an event's memory vectors, appended after the reply", () => {
  test("the writes of one window share one commit; SQLite has the memories at once, LanceDB once the window ends", async () => {
    const commits = countCommits(t.app);
    for (let i = 0; i < 6; i++) expect((await event(w, "window-a", w.minds.garrick)).status).toBe(201);
    expect(sqliteIds(t.app, "window-a")).toHaveLength(6);
    expect(await lanceIds(t.app, "playerId = 'window-a'")).toEqual([]);
    expect(queuedIds(t.app)).toEqual(sqliteIds(t.app, "window-a"));
    expect(clock.open()).toBe(1);
    clock.end();
    await t.app.ctx.vectors.appends.flush(); // waits for the commit the window's end started
    expect(await lanceIds(t.app, "playerId = 'window-a'")).toEqual(sqliteIds(t.app, "window-a"));
    expect(commits).toEqual({ add: 1, merge: 0, delete: 0 });
    expect(queuedIds(t.app)).toEqual([]); // the commit forgot them
  });

  test("a window that reaches memoryAppendRows commits without waiting for its end", async () => {
    const commits = countCommits(t.app);
    const body = { events: Array.from({ length: 50 }, (_, i) => ({ type: "trade", description: `Bulk sale number ${i}`, playerId: "bulk", witnesses: [w.minds.garrick] })) };
    expect((await t.call("POST", "/v1/events", { key: w.keys.server, body })).status).toBe(201);
    expect(clock.open()).toBe(0);
    await t.app.ctx.vectors.appends.flush();
    expect((await lanceIds(t.app, "playerId = 'bulk'")).length).toBe(50);
    expect(commits.add).toBe(1);
  });

  test("a delete within the window: the queued append lands first, so the row is gone from LanceDB and stays gone", async () => {
    expect((await event(w, "deleted", w.minds.garrick)).status).toBe(201);
    const [id] = sqliteIds(t.app, "deleted");
    expect(await lanceIds(t.app, `id = '${id}'`)).toEqual([]); // still queued
    await t.app.ctx.vectors.deleteMemories({ projectId: w.projectId, ids: [id] });
    clock.end();
    await t.app.ctx.vectors.appends.flush();
    expect(await lanceIds(t.app, `id = '${id}'`)).toEqual([]);
    expect(t.app.ctx.vectors.appends.pending).toBe(0);
  });

  test("erasing a player within the window: none of their vectors is left in LanceDB, another player's land", async () => {
    for (const mind of [w.minds.garrick, w.minds.elena]) expect((await event(w, "erased", mind)).status).toBe(201);
    expect((await event(w, "kept", w.minds.garrick)).status).toBe(201);
    const erasedIds = sqliteIds(t.app, "erased");
    expect(erasedIds).toHaveLength(2);
    const r = await t.call("DELETE", `/admin/v1/projects/${w.projectId}/players/erased/memories`, { key: admin });
    expect(r.status).toBe(200);
    expect(r.body.memoriesDeleted).toBe(2);
    clock.end();
    await t.app.ctx.vectors.appends.flush();
    expect(await lanceIds(t.app, "playerId = 'erased'")).toEqual([]);
    expect(await lanceIds(t.app, "playerId = 'kept'")).toEqual(sqliteIds(t.app, "kept"));
    expect(queuedIds(t.app)).toEqual([]);
  });

  test("a read of a group with queued rows commits them first; a read of another group leaves the window alone", async () => {
    const text = "The player paid the lantern keeper in honey";
    expect((await event(w, "reader", w.minds.garrick, text)).status).toBe(201);
    expect((await event(w, "bystander", w.minds.elena)).status).toBe(201);
    // another group (the same player with another mind, another player): nothing of theirs is queued
    await retrieveMemories(t.app.ctx, { projectId: w.projectId, mindId: w.minds.elena, playerId: "reader", query: "lantern honey", enhanced: true });
    expect(t.app.ctx.vectors.appends.pending).toBe(2);
    // the enhanced retrieval of the group ranks the new memory by its vector, found in LanceDB
    const got = await t.app.ctx.vectors.searchMemories({ projectId: w.projectId, entityMindId: w.minds.garrick, playerId: "reader", query: "lantern keeper honey", k: 3 });
    expect(got.map((m) => m.text)).toEqual([text]);
    expect(got[0].score).toBeGreaterThan(0.5);
    expect(t.app.ctx.vectors.appends.pending).toBe(0); // the whole queue went in that commit
    expect(await lanceIds(t.app, "playerId = 'bystander'")).toEqual(sqliteIds(t.app, "bystander"));
    clock.end();
  });

  test("projects stay apart: a read in one never returns another's queued memory, a project's delete leaves the other's", async () => {
    const secret = "SALTMARK the player smuggled salt past the toll";
    expect((await event(w, "shared-player", w.minds.garrick, secret)).status).toBe(201);
    expect((await event(other, "shared-player", other.minds.garrick, "The player bought bread")).status).toBe(201);
    // the other project's mind, the same player id: its group holds its own memory only
    const there = await t.app.ctx.vectors.searchMemories({ projectId: other.projectId, entityMindId: other.minds.garrick, playerId: "shared-player", query: "salt toll smuggled", k: 5 });
    expect(there.map((m) => m.text)).toEqual(["The player bought bread"]);
    const cross = await t.app.ctx.vectors.searchMemories({ projectId: other.projectId, entityMindId: w.minds.garrick, playerId: "shared-player", query: "salt toll smuggled", k: 5 });
    expect(cross).toEqual([]);
    expect((await event(w, "after-delete", w.minds.garrick)).status).toBe(201);
    expect((await event(other, "after-delete", other.minds.garrick)).status).toBe(201);
    await t.app.ctx.vectors.deleteProject(other.projectId);
    expect(await lanceIds(t.app, `projectId = '${other.projectId}'`)).toEqual([]);
    expect(await lanceIds(t.app, "playerId = 'after-delete'")).toEqual(sqliteIds(t.app, "after-delete").filter((id) => (t.app.db.query("SELECT project_id FROM memories WHERE id = ?").get(id) as { project_id: string }).project_id === w.projectId));
    clock.end();
  });

  test("a failed commit leaves its memories queued, and the repair job writes them; a memory still in its window lands once", async () => {
    const table = t.app.ctx.vectors.activeGeneration().memories;
    const add = table.add.bind(table);
    table.add = (() => Promise.reject(new Error("disk full"))) as unknown as typeof table.add;
    expect((await event(w, "failed", w.minds.garrick)).status).toBe(201);
    clock.end();
    await t.app.ctx.vectors.appends.flush();
    table.add = add;
    const lost = sqliteIds(t.app, "failed");
    expect(await lanceIds(t.app, "playerId = 'failed'")).toEqual([]);
    expect(queuedIds(t.app)).toEqual(lost);
    // a memory queued in this process's open window is its append's, not the repair's (whose write commits the
    // window first, as every other write does): in LanceDB once
    const commits = countCommits(t.app);
    expect((await event(w, "in-window", w.minds.garrick)).status).toBe(201);
    await t.app.scheduler.trigger("memory-vector-repair");
    expect(await lanceIds(t.app, "playerId = 'failed'")).toEqual(lost);
    expect(await lanceIds(t.app, "playerId = 'in-window'")).toEqual(sqliteIds(t.app, "in-window"));
    expect(commits).toEqual({ add: 1, merge: 1, delete: 0 });
    expect(queuedIds(t.app)).toEqual([]);
    clock.end();
  });
});

describe("the window at shutdown and after a crash", () => {
  test("stopping the server commits the window's appends", async () => {
    const timer = manualTimer();
    const s = await createTestApp({ embeddingModel: "hashing" }, { loadModel: false, appendTimer: timer.timer });
    const dir = s.dir;
    const world = buildWorld(s.app.ctx as any, "Thornhaven");
    for (let i = 0; i < 3; i++) {
      const r = await s.call("POST", "/v1/events", { key: world.keys.server, body: { type: "trade", description: `Sale ${i}`, playerId: "leaving", witnesses: [world.minds.garrick] } });
      expect(r.status).toBe(201);
    }
    const ids = sqliteIds(s.app, "leaving");
    expect(await lanceIds(s.app)).not.toContain(ids[0]);
    await s.app.stop(); // the window never ended
    const again = await App.create(testConfig(dir, { embeddingModel: "hashing" }), { loadModel: false });
    try {
      expect(await lanceIds(again, "playerId = 'leaving'")).toEqual(ids);
      expect(queuedIds(again)).toEqual([]);
    } finally {
      await again.stop();
      await s.close().catch(() => undefined);
    }
  });

  test("a crash in the window: the next start's repair writes the lost vectors from SQLite, and not an erased player's", async () => {
    const dir = tempDir();
    // another process records events with a window that never ends, then dies without stopping
    const script = join(import.meta.dir, "..", "support", "crashInWindow.ts");
    const child = Bun.spawn([process.execPath, script, dir], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    const { projectId } = JSON.parse(out.trim().split("\n").pop()!) as { projectId: string };
    const app = await App.create(testConfig(dir, { embeddingModel: "hashing" }), { loadModel: false });
    try {
      const lost = [...sqliteIds(app, "crashed"), ...sqliteIds(app, "crashed-erased")];
      expect(lost).toHaveLength(4);
      // the one committed before the crash whose mark stayed (its commit's bookkeeping lost)
      const committed = sqliteIds(app, "committed");
      expect(queuedIds(app)).toEqual([...lost, ...committed].sort());
      expect(await lanceIds(app, `projectId = '${projectId}'`)).toEqual(committed);
      // a player erased before the repair ran: the erase takes their queued marks with it
      const erase = await app.handle(new Request(`http://local/admin/v1/projects/${projectId}/players/crashed-erased/memories`, { method: "DELETE", headers: { authorization: `Bearer ${ensureAdminToken(app.db).adminToken}` } }));
      expect(erase.status).toBe(200);
      await app.scheduler.trigger("memory-vector-repair");
      expect(await lanceIds(app, "playerId = 'crashed'")).toEqual(sqliteIds(app, "crashed"));
      expect(await lanceIds(app, "playerId = 'crashed-erased'")).toEqual([]);
      expect(await lanceIds(app, `id = '${committed[0]}'`)).toEqual(committed); // merged on id, not doubled
      expect(queuedIds(app)).toEqual([]);
      // the repaired vectors are the memories' own: the group's search finds its text first
      const [mindId] = (app.db.query("SELECT mind_id FROM memories WHERE player_id = 'crashed'").all() as { mind_id: string }[]).map((r) => r.mind_id);
      const hits = await app.ctx.vectors.searchMemories({ projectId, entityMindId: mindId, playerId: "crashed", query: "lantern ferry crossing", k: 1 });
      expect(hits[0].text).toContain("ferry");
    } finally {
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the window's bounds, on the vector store alone", () => {
  const row = (id: string) => ({ id, projectId: "p1", entityMindId: "m1", playerId: "solo", text: `The player ${id} crossed the bridge`, importance: 3, topics: [], createdAt: new Date().toISOString() });

  test("a window of 0 commits each append at once, without a timer; a closed store refuses appends", async () => {
    const dir = tempDir();
    const timer = manualTimer();
    const store = await VectorStore.open(dir, new HashingEmbedder(), { memoryAppendWindowMs: 0, appendTimer: timer.timer });
    try {
      const v0 = await store.activeGeneration().memories.version();
      await store.appendMemories([row("a")]);
      await store.appendMemories([row("b"), row("c")]);
      expect(timer.open()).toBe(0);
      expect((await store.activeGeneration().memories.version()) - v0).toBe(2);
      expect(() => store.appendMemories([row("d"), row("d")])).toThrow("queued twice");
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => store.appendMemories([row("e")])).toThrow("VectorStore is closed");
  });
});
