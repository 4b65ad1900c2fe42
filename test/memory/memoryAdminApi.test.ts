import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { runCli } from "../../src/cli/runCli.ts";
import { storeMemories } from "../../src/npc/memory/storeMemories.ts";
import { pendingTombstones, purgeErasedMemories } from "../../src/npc/memory/tombstones.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { insertSession, memoryWorld, vectorIds } from "./memoryWorld.ts";

let t: TestApp;
let token: string;
let w: ReturnType<typeof memoryWorld>;
const admin = (method: string, path: string) => t.call(method, `/admin/v1${path}`, { key: token });

async function seed(playerId: string) {
  const ctx = t.app.ctx;
  await storeMemories(ctx, { projectId: w.p1, mindId: w.garrick, playerId, drafts: [{ text: "The player is a travelling bard.", importance: 5, topics: ["job"] }] });
  t.clock.advance(1000);
  await storeMemories(ctx, { projectId: w.p1, mindId: w.elena, playerId, drafts: [{ text: "The player bought a map of the tunnels.", importance: 6, topics: ["map"] }] });
  insertSession(ctx, w.p1, w.garrick, playerId, [{ role: "user", content: "Hello!" }]);
}

beforeAll(async () => {
  t = await createTestApp();
  token = ensureAdminToken(t.app.db).adminToken;
  w = memoryWorld(t.app.ctx);
  await seed("api-player");
  await seed("cli-player");
  await storeMemories(t.app.ctx, { projectId: w.p1, mindId: w.garrick, playerId: "bystander", drafts: [{ text: "The player is shy.", importance: 2, topics: [] }] });
});
afterAll(() => t.close());

describe("admin memory routes", () => {
  const p = () => `/projects/${w.p1}/players/api-player`;

  test("list, filtered by mind", async () => {
    const all = await admin("GET", `${p()}/memories`);
    expect(all.status).toBe(200);
    expect(all.body.memories.map((m: any) => m.text)).toEqual(["The player is a travelling bard.", "The player bought a map of the tunnels."]);
    expect(Object.keys(all.body.memories[0]).sort()).toEqual(["createdAt", "entityMindId", "id", "importance", "playerId", "text", "topics", "updatedAt"]);
    const one = await admin("GET", `${p()}/memories?entityMindId=${w.elena}`);
    expect(one.body.memories).toHaveLength(1);
    expect(one.body.memories[0]).toMatchObject({ entityMindId: w.elena, playerId: "api-player", importance: 6, topics: ["map"] });
    expect((await admin("GET", `/projects/${w.p1}/players/nobody/memories`)).body).toEqual({ memories: [] });
  });

  test("export", async () => {
    const r = await admin("GET", `${p()}/export`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["exportedAt", "memories", "playerId", "sessions", "state"]);
    expect(r.body.playerId).toBe("api-player");
    expect(r.body.memories).toHaveLength(2);
    expect(r.body.sessions).toEqual([{ entityMindId: w.garrick, messages: [{ role: "user", content: "Hello!" }], updatedAt: expect.any(String) }]);
  });

  test("a player id with URL-special characters", async () => {
    await storeMemories(t.app.ctx, { projectId: w.p1, mindId: w.garrick, playerId: "steam:7656/ä b", drafts: [{ text: "The player trades furs.", importance: 3, topics: [] }] });
    const r = await admin("GET", `/projects/${w.p1}/players/${encodeURIComponent("steam:7656/ä b")}/memories`);
    expect(r.status).toBe(200);
    expect(r.body.memories.map((m: any) => m.playerId)).toEqual(["steam:7656/ä b"]);
  });

  test("delete erases memories (SQLite and LanceDB) and sessions; export is empty after", async () => {
    const r = await admin("DELETE", `${p()}/memories`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ playerId: "api-player", memoriesDeleted: 2, sessionsDeleted: 1, stateKeysDeleted: 0 });
    const ex = await admin("GET", `${p()}/export`);
    expect(ex.body).toMatchObject({ playerId: "api-player", memories: [], sessions: [] });
    expect(await vectorIds(t.app.ctx, w.p1, w.garrick, "api-player")).toEqual([]);
    expect(await vectorIds(t.app.ctx, w.p1, w.elena, "api-player")).toEqual([]);
    expect((await admin("GET", `/projects/${w.p1}/players/bystander/memories`)).body.memories).toHaveLength(1);
  });

  const routes: Array<[string, string]> = [
    ["GET", "memories"],
    ["GET", "export"],
    ["DELETE", "memories"],
  ];
  for (const [method, leaf] of routes) {
    test(`${method} ${leaf}: 401 without the admin token, 404 for an unknown project`, async () => {
      const noAuth = await t.call(method, `/admin/v1/projects/${w.p1}/players/bystander/${leaf}`);
      expect(noAuth.status).toBe(401);
      expect(noAuth.body).toEqual({ error: "Invalid authentication" });
      const wrong = await t.call(method, `/admin/v1/projects/${w.p1}/players/bystander/${leaf}`, { key: "lh_admin_wrong" });
      expect(wrong.status).toBe(401);
      const missing = await admin(method, `/projects/proj_nope/players/bystander/${leaf}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: "Project not found" });
    });
  }

  test("nothing of the bystander was touched by the failed calls", async () => {
    expect((await admin("GET", `/projects/${w.p1}/players/bystander/memories`)).body.memories).toHaveLength(1);
  });

  test("the routes are in the Swagger document under Admin", async () => {
    const r = await t.call("GET", "/swagger/json");
    expect(r.status).toBe(200);
    const paths = r.body.paths;
    const keys = Object.keys(paths).filter((k) => k.includes("/projects/{projectId}/players/"));
    expect(keys.sort()).toEqual(["/admin/v1/projects/{projectId}/players/{playerId}/export", "/admin/v1/projects/{projectId}/players/{playerId}/memories"]);
    const memories = paths["/admin/v1/projects/{projectId}/players/{playerId}/memories"];
    expect(memories.get.tags).toEqual(["Admin"]);
    expect(memories.delete.tags).toEqual(["Admin"]);
  });
});

describe("CLI memories commands (--json prints exactly one JSON object)", () => {
  async function cli(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli([...args, "--data-dir", join(t.dir, "data")], { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
    return { code, out, err: err.join("\n"), json: args.includes("--json") && out.length === 1 ? JSON.parse(out[0]) : undefined };
  }

  test("list, by project id or name, filtered by mind id or key", async () => {
    const r = await cli("memories", "list", "--project", w.p1, "--player", "cli-player", "--json");
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    expect(Object.keys(r.json)).toEqual(["memories"]);
    expect(r.json.memories.map((m: any) => m.text)).toEqual(["The player is a travelling bard.", "The player bought a map of the tunnels."]);
    const byName = await cli("memories", "list", "--project", w.p1Name, "--player", "cli-player", "--mind", "elena", "--json");
    expect(byName.json.memories.map((m: any) => m.entityMindId)).toEqual([w.elena]);
    const byId = await cli("memories", "list", "--project", w.p1, "--player", "cli-player", "--mind", w.garrick, "--json");
    expect(byId.json.memories.map((m: any) => m.entityMindId)).toEqual([w.garrick]);
    const text = await cli("memories", "list", "--project", w.p1, "--player", "cli-player");
    expect(text.out.join("\n")).toContain("travelling bard");
  });

  test("export", async () => {
    const r = await cli("memories", "export", "--project", w.p1, "--player", "cli-player", "--json");
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    expect(Object.keys(r.json).sort()).toEqual(["exportedAt", "memories", "playerId", "sessions", "state"]);
    expect(r.json.memories).toHaveLength(2);
    expect(r.json.sessions).toHaveLength(1);
  });

  test("erase deletes the rows; the server's purge removes the vectors", async () => {
    expect(await vectorIds(t.app.ctx, w.p1, w.garrick, "cli-player")).toHaveLength(1);
    const r = await cli("memories", "erase", "--project", w.p1, "--player", "cli-player", "--json");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ playerId: "cli-player", memoriesDeleted: 2, sessionsDeleted: 1, stateKeysDeleted: 0 });
    const after = await cli("memories", "export", "--project", w.p1, "--player", "cli-player", "--json");
    expect(after.json).toMatchObject({ memories: [], sessions: [] });
    expect(pendingTombstones(t.app.db)).toBe(2);
    expect(await purgeErasedMemories(t.app.ctx)).toEqual({ purged: 2 });
    expect(await vectorIds(t.app.ctx, w.p1, w.garrick, "cli-player")).toEqual([]);
    expect(await vectorIds(t.app.ctx, w.p1, w.elena, "cli-player")).toEqual([]);
  });

  const bad: Array<[string, string[], number, string]> = [
    ["list without --project", ["memories", "list", "--player", "x", "--json"], 2, "missing --project"],
    ["list without --player", ["memories", "list", "--project", "x", "--json"], 2, "missing --player"],
    ["export for an unknown project", ["memories", "export", "--project", "proj_nope", "--player", "x", "--json"], 1, "Project not found"],
    ["erase without --player", ["memories", "erase", "--project", "x", "--json"], 2, "missing --player"],
  ];
  for (const [name, args, code, message] of bad) {
    test(`${name} → exit ${code}`, async () => {
      const r = await cli(...args);
      expect(r.code).toBe(code);
      expect(r.json).toEqual({ error: message });
    });
  }
});
