import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { exportPack } from "../../src/packs/exportPack.ts";
import { importPack } from "../../src/packs/importPack.ts";
import { importCardBytes } from "../../src/cards/importCard.ts";
import { erasePlayerRows, exportPlayerData } from "../../src/npc/memory/memoryAdmin.ts";
import { readMinds } from "../../src/lore/minds/readMinds.ts";
import { SHOPKEEPER } from "./fixtures.ts";

let t: TestApp;
let w: World;
let other: World;
let token: string;
const admin = (method: string, path: string, body?: unknown) => t.call(method, `/admin/v1${path}`, { key: token, body });
const mindPath = () => `/projects/${w.projectId}/minds/${w.minds.garrick}`;

beforeAll(async () => {
  t = await createTestApp({}, { loadModel: false });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  token = ensureAdminToken(t.app.db).adminToken;
});
afterAll(() => t.close());

describe("the admin API: a mind's behaviour", () => {
  test("set, read back as authored, dated; removed with null; other fields untouched", async () => {
    const before = (await admin("GET", mindPath())).body;
    expect(before.behaviour).toBeNull();
    t.clock.advance(5000);
    const r = await admin("PATCH", mindPath(), { behaviour: SHOPKEEPER });
    expect(r.status).toBe(200);
    expect(r.body.behaviour).toEqual(SHOPKEEPER);
    expect(r.body.updatedAt > before.updatedAt).toBe(true);
    expect(r.body.personality).toBe(before.personality);
    expect((await admin("GET", `/projects/${w.projectId}/minds`)).body.minds.find((m: any) => m.id === w.minds.garrick).behaviour).toEqual(SHOPKEEPER);
    // A patch of another field keeps it.
    expect((await admin("PATCH", mindPath(), { role: "Innkeeper" })).body.behaviour).toEqual(SHOPKEEPER);
    expect((await admin("PATCH", mindPath(), { behaviour: null })).body.behaviour).toBeNull();
  });

  test("created with a mind", async () => {
    const r = await admin("POST", `/projects/${w.projectId}/minds`, { entityName: "Tess", personality: "Shy.", behaviour: { emotions: ["shy"] } });
    expect(r.status).toBe(201);
    expect(r.body.behaviour).toEqual({ emotions: ["shy"] });
  });

  test("400 Invalid request with the path of every problem; nothing written", async () => {
    const bad = {
      emotions: ["happy", "happy"],
      actions: [
        { name: "give gold", description: "Pay." },
        { name: "wave", description: "Wave.", params: { type: "object", properties: { line: { type: "string" }, n: { type: "integer", minimum: 0.5 } } } },
      ],
      trust: { min: 3, max: 1 },
    };
    const r = await admin("PATCH", mindPath(), { behaviour: bad, role: "Changed" });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Invalid request");
    const paths = (r.body.details as string[]).map((d) => d.split(": ")[0]);
    expect(paths).toEqual(
      expect.arrayContaining(["behaviour.actions.0.name", "behaviour.actions.1.params.properties.line.maxLength", "behaviour.actions.1.params.properties.n.minimum"]),
    );
    // The rules a schema cannot state answer in the same form.
    const rules = await admin("PATCH", mindPath(), { behaviour: { emotions: ["happy", "happy"], trust: { min: 3, max: 1 } } });
    expect(rules.status).toBe(400);
    expect(rules.body.details).toEqual(["behaviour.emotions[1]: duplicate emotion 'happy'", "behaviour.trust.max: must be greater than min"]);
    expect((await admin("GET", mindPath())).body.role).toBe("Innkeeper");
  });

  test("the action gate's threshold: set and read back, 400 with its path outside (0, 1], removed with the behaviour", async () => {
    const r = await admin("PATCH", mindPath(), { behaviour: { ...SHOPKEEPER, actionGate: 0.35 } });
    expect(r.status).toBe(200);
    expect(r.body.behaviour.actionGate).toBe(0.35);
    for (const bad of [0, -0.2, 1.2, "0.5", null]) {
      const res = await admin("PATCH", mindPath(), { behaviour: { ...SHOPKEEPER, actionGate: bad } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("Invalid request");
      expect(res.body.details).toEqual(["behaviour.actionGate: must be a number above 0 and at most 1"]);
    }
    expect((await admin("GET", mindPath())).body.behaviour.actionGate).toBe(0.35);
    expect((await admin("PATCH", mindPath(), { behaviour: SHOPKEEPER })).body.behaviour).not.toHaveProperty("actionGate");
  });

  test("GET /v1/lore/minds keeps the spec's shape", async () => {
    await admin("PATCH", mindPath(), { behaviour: SHOPKEEPER });
    const r = await t.call("GET", "/v1/lore/minds", { key: w.keys.editor });
    expect(r.body.minds.find((m: any) => m.id === w.minds.garrick)).not.toHaveProperty("behaviour");
  });
});

describe("lore packs", () => {
  const pack = (behaviour: unknown) => ({ project: { name: "Saltmarsh" }, tags: [{ name: "docks" }], minds: [{ key: "mara", entityName: "Mara", personality: "Sharp.", knowledgeTags: ["docks"], behaviour }] });

  test("behaviour round-trips through export and import; an unchanged re-import writes nothing", () => {
    const ctx = t.app.ctx;
    const r = importPack(ctx, pack(SHOPKEEPER));
    const exported = exportPack(ctx, r.projectId);
    expect(exported.minds![0].behaviour).toEqual(SHOPKEEPER);
    const stamp = readMinds(ctx, r.projectId)[0].updatedAt;
    t.clock.advance(10_000);
    importPack(ctx, exported, { projectId: r.projectId });
    expect(readMinds(ctx, r.projectId)[0].updatedAt).toBe(stamp);
    // Dropped from the pack: removed (the pack is the truth), and the mind is dated.
    importPack(ctx, { ...exported, minds: [{ ...exported.minds![0], behaviour: undefined }] }, { projectId: r.projectId });
    expect(exportPack(ctx, r.projectId).minds![0]).not.toHaveProperty("behaviour");
    expect(readMinds(ctx, r.projectId)[0].updatedAt > stamp).toBe(true);
  });

  test("a mind's action gate round-trips through a pack; one outside (0, 1] refuses it", () => {
    const ctx = t.app.ctx;
    const r = importPack(ctx, { ...pack({ ...SHOPKEEPER, actionGate: 0.6 }), project: { name: "Gated" } });
    const exported = exportPack(ctx, r.projectId);
    expect(exported.minds![0].behaviour).toEqual({ ...SHOPKEEPER, actionGate: 0.6 });
    const again = importPack(ctx, exported);
    expect(exportPack(ctx, again.projectId).minds![0].behaviour!.actionGate).toBe(0.6);
    let err: any;
    try {
      importPack(ctx, pack({ actionGate: 2 }));
    } catch (e) {
      err = e;
    }
    expect(err.status).toBe(400);
    expect(err.extra.details).toEqual(["minds[0].behaviour.actionGate: must be a number above 0 and at most 1"]);
  });

  test("an invalid behaviour refuses the pack with every problem's path", () => {
    let err: any;
    try {
      importPack(t.app.ctx, pack({ emotions: ["a", "a"], actions: [{ name: "x", description: "d", params: { type: "object", properties: { s: { type: "string", maxLength: 999 } } } }], mood: 1 }));
    } catch (e) {
      err = e;
    }
    expect(err.status).toBe(400);
    expect(err.error).toBe("Invalid lore pack");
    expect(err.extra.details).toEqual([
      "minds[0].behaviour.actions[0].params.properties.s.maxLength: must be an integer from 1 to 200",
      "minds[0].behaviour.mood: unknown field (known: emotions, actions, maxActionsPerTurn, trust, actionGate)",
    ]);
    let rules: any;
    try {
      importPack(t.app.ctx, pack({ emotions: ["a", "a"] }));
    } catch (e) {
      rules = e;
    }
    expect(rules.extra.details).toEqual(["minds[0].behaviour.emotions[1]: duplicate emotion 'a'"]);
  });

  test("a card import leaves behaviour empty", () => {
    const card = { spec: "chara_card_v2", spec_version: "2.0", data: { name: "Bram", description: "A guard.", personality: "Gruff.", first_mes: "Halt.", mes_example: "", scenario: "" } };
    const r = importCardBytes(t.app.ctx, new TextEncoder().encode(JSON.stringify(card)));
    expect(exportPack(t.app.ctx, r.projectId).minds![0]).not.toHaveProperty("behaviour");
  });
});

describe("trust: the Server-Key routes", () => {
  const path = (mindId = w.minds.garrick, player = "p-trust") => `/v1/npc/${mindId}/trust/${encodeURIComponent(player)}`;
  beforeAll(async () => {
    await admin("PATCH", mindPath(), { behaviour: SHOPKEEPER });
  });

  test("a new player reads the initial value, not stored", async () => {
    const r = await t.call("GET", path(), { key: w.keys.server });
    expect(r).toMatchObject({ status: 200, body: { entityMindId: w.minds.garrick, playerId: "p-trust", value: 0, label: "neutral", min: -10, max: 10, stored: false } });
  });
  test("set within the range; read back; a player id with URL-special characters", async () => {
    const player = "steam:7656/ä b";
    const put = await t.call("PUT", path(w.minds.garrick, player), { key: w.keys.server, body: { value: 6 } });
    expect(put).toMatchObject({ status: 200, body: { value: 6, label: "friendly", stored: true, playerId: player } });
    expect((await t.call("GET", path(w.minds.garrick, player), { key: w.keys.server })).body.value).toBe(6);
  });
  const rejected: Array<[string, unknown, number, string]> = [
    ["above the range", { value: 11 }, 400, "Invalid request"],
    ["below the range", { value: -11 }, 400, "Invalid request"],
    ["not an integer", { value: 1.5 }, 400, "Invalid request"],
    ["a string", { value: "5" }, 400, "Invalid request"],
    ["missing", {}, 400, "Invalid request"],
    ["an unknown field", { value: 1, delta: 2 }, 400, "Unknown field(s)"],
  ];
  for (const [name, body, status, error] of rejected) {
    test(`PUT ${name}: ${status} ${error}, nothing written`, async () => {
      const r = await t.call("PUT", path(w.minds.garrick, "p-bounds"), { key: w.keys.server, body });
      expect(r.status).toBe(status);
      expect(r.body.error).toBe(error);
      expect((await t.call("GET", path(w.minds.garrick, "p-bounds"), { key: w.keys.server })).body.stored).toBe(false);
    });
  }
  test("the range's own message names the bounds", async () => {
    const r = await t.call("PUT", path(), { key: w.keys.server, body: { value: 11 } });
    expect(r.body.details).toEqual(["value: must be an integer from -10 to 10"]);
  });

  const denied: Array<[string, () => string | null, () => string, number, string]> = [
    ["no key", () => null, () => path(), 401, "Invalid API key"],
    ["a revoked key", () => w.keys.revokedServer, () => path(), 401, "Invalid API key"],
    ["an Editor Key", () => w.keys.editor, () => path(), 403, "Invalid authentication"],
    ["another project's key", () => other.keys.server, () => path(), 404, "Entity Mind not found"],
    ["another project's mind", () => w.keys.server, () => path(other.minds.garrick), 404, "Entity Mind not found"],
    ["an unknown mind", () => w.keys.server, () => path("mind_nope"), 404, "Entity Mind not found"],
    ["a mind without trust", () => w.keys.server, () => path(w.minds.elena), 400, "Entity Mind has no trust configured"],
  ];
  for (const [name, key, p, status, error] of denied) {
    for (const method of ["GET", "PUT"]) {
      test(`${method} ${name}: ${status} ${error}`, async () => {
        const r = await t.call(method, p(), { key: key(), body: method === "PUT" ? { value: 1 } : undefined });
        expect(r.status).toBe(status);
        expect(r.body).toEqual({ error });
      });
    }
  }
  test("another project's key never touched this project's value", async () => {
    expect((await t.call("GET", path(), { key: w.keys.server })).body.stored).toBe(false);
  });
});

describe("trust: admin routes, export and erase", () => {
  const adminPath = (player: string) => `/projects/${w.projectId}/minds/${w.minds.garrick}/trust/${encodeURIComponent(player)}`;
  test("admin read and set; another project's id is 404", async () => {
    expect((await admin("PUT", adminPath("p-admin"), { value: -3 })).body).toMatchObject({ value: -3, label: "hostile", stored: true });
    expect((await admin("GET", adminPath("p-admin"))).body.value).toBe(-3);
    expect((await admin("GET", `/projects/${other.projectId}/minds/${w.minds.garrick}/trust/p-admin`)).status).toBe(404);
    expect((await t.call("GET", `/admin/v1${adminPath("p-admin")}`, { key: null })).status).toBe(401);
  });
  test("exported with the player's data and erased with it (API and the CLI's row erase)", async () => {
    await admin("PUT", adminPath("p-erase"), { value: 4 });
    const exp = await admin("GET", `/projects/${w.projectId}/players/p-erase/export`);
    expect(exp.body.trust).toEqual([{ entityMindId: w.minds.garrick, value: 4, updatedAt: expect.any(String) }]);
    const erased = await admin("DELETE", `/projects/${w.projectId}/players/p-erase/memories`);
    expect(erased.body).toEqual({ playerId: "p-erase", memoriesDeleted: 0, sessionsDeleted: 0, stateKeysDeleted: 0, trustDeleted: 1 });
    expect((await admin("GET", adminPath("p-erase"))).body).toMatchObject({ value: 0, stored: false });
    await admin("PUT", adminPath("p-cli"), { value: 2 });
    expect(erasePlayerRows(t.app.ctx, w.projectId, "p-cli").trustDeleted).toBe(1);
    expect(exportPlayerData(t.app.ctx, w.projectId, "p-cli").trust).toEqual([]);
    // Other players keep theirs.
    expect((await admin("GET", adminPath("p-admin"))).body.value).toBe(-3);
  });
  test("a player's trust in every mind that keeps trust: stored or initial; 404 for an unknown project, 401 without the key", async () => {
    await admin("PATCH", mindPath(), { behaviour: SHOPKEEPER });
    const list = (player: string, projectId = w.projectId) => admin("GET", `/projects/${projectId}/players/${encodeURIComponent(player)}/trust`);
    const fresh = await list("p-list");
    expect(fresh.status).toBe(200);
    expect(fresh.body.playerId).toBe("p-list");
    const garrick = () => fresh.body.trust.find((x: any) => x.entityMindId === w.minds.garrick);
    expect(garrick()).toEqual({ entityMindId: w.minds.garrick, playerId: "p-list", value: 0, label: "neutral", min: -10, max: 10, stored: false });
    // Minds without behaviour (or without trust) are not listed.
    expect(fresh.body.trust.some((x: any) => x.entityMindId === w.minds.elena)).toBe(false);
    await admin("PUT", adminPath("p-list"), { value: 6 });
    expect((await list("p-list")).body.trust.find((x: any) => x.entityMindId === w.minds.garrick)).toMatchObject({ value: 6, label: "friendly", stored: true });
    // Another project's list never shows this project's minds; an unknown project is 404; no key is 401.
    expect((await list("p-list", other.projectId)).body.trust).toEqual([]);
    expect((await list("p-list", "no-such-project")).status).toBe(404);
    expect((await t.call("GET", `/admin/v1/projects/${w.projectId}/players/p-list/trust`, { key: null })).status).toBe(401);
    expect((await t.call("GET", `/admin/v1/projects/${w.projectId}/players/p-list/trust`, { key: w.keys.server })).status).toBe(401);
    expect((await list("x".repeat(300))).status).toBe(400);
  });
  test("a mind's deletion takes its trust rows with it", async () => {
    const m = (await admin("POST", `/projects/${w.projectId}/minds`, { entityName: "Gone", personality: "x", behaviour: { trust: {} } })).body.id;
    await admin("PUT", `/projects/${w.projectId}/minds/${m}/trust/p-gone`, { value: 1 });
    expect(exportPlayerData(t.app.ctx, w.projectId, "p-gone").trust).toHaveLength(1);
    await admin("DELETE", `/projects/${w.projectId}/minds/${m}`);
    expect(exportPlayerData(t.app.ctx, w.projectId, "p-gone").trust).toEqual([]);
  });
});

describe("an action's `when`: a condition on state and trust", () => {
  const gated = {
    actions: [
      { name: "open_vault", description: "Open the vault.", when: "quest.vault.open == true" },
      { name: "hug", description: "Hug the player.", when: "trust >= 5" },
      { name: "wave", description: "Wave." },
    ],
    trust: {},
  };
  const preview = (playerId: string, extra: Record<string, unknown> = {}) =>
    admin("POST", `/projects/${w.projectId}/interact-preview`, { text: "Hi", entityMindId: w.minds.garrick, playerId, ...extra });

  test("checked when authored: a condition that does not parse, or compares a declared key with the wrong type", async () => {
    const bad = await admin("PATCH", mindPath(), { behaviour: { actions: [{ name: "x", description: "d", when: "quest.vault.open ==" }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([expect.stringMatching(/^behaviour\.actions\[0\]\.when: .+ \(at character \d+\)$/)]);
    const pack = { project: { name: "Vaults" }, state: { stateKeys: { "vault.level": { type: "number" } } }, tags: [{ name: "v" }], minds: [{ key: "m", entityName: "M", personality: "P.", knowledgeTags: ["v"], behaviour: { actions: [{ name: "x", description: "d", when: 'vault.level == "high"' }] } }] };
    let err: any;
    try {
      importPack(t.app.ctx, pack);
    } catch (e) {
      err = e;
    }
    expect(err?.extra.details).toEqual([expect.stringMatching(/^minds\[0\]\.behaviour\.actions\[0\]\.when: .*number.* \(at character \d+\)$/)]);
  });

  test("offered only while it holds: the player's state, the request's state, the player's trust", async () => {
    expect((await admin("PATCH", mindPath(), { behaviour: gated })).status).toBe(200);
    const offered = async (playerId: string, extra: Record<string, unknown> = {}) => (await preview(playerId, extra)).body.behaviour.offered;
    expect(await offered("p-when")).toEqual(["wave"]);
    expect((await preview("p-when")).body.behaviour.withheld).toContainEqual({ name: "open_vault", reason: "when is false (quest.vault.open == true)" });
    // The request's own state, this turn only.
    expect(await offered("p-when", { state: { "quest.vault.open": true } })).toEqual(["open_vault", "wave"]);
    expect(await offered("p-when")).toEqual(["wave"]);
    // The player's stored state.
    expect((await t.call("PUT", "/v1/state/players/p-when", { key: w.keys.server, body: { set: { "quest.vault.open": true } } })).status).toBe(200);
    expect(await offered("p-when")).toEqual(["open_vault", "wave"]);
    // Trust, as the scope's `trust`.
    await t.call("PUT", `/v1/npc/${w.minds.garrick}/trust/p-when`, { key: w.keys.server, body: { value: 5 } });
    expect(await offered("p-when")).toEqual(["open_vault", "hug", "wave"]);
    await admin("PATCH", mindPath(), { behaviour: SHOPKEEPER });
  });
});
