import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { STATE_LIMITS } from "../../src/state/stateKeys.ts";
import { runCli } from "../../src/cli/runCli.ts";

let t: TestApp;
let w: World;
let other: World;
let admin: string;
const put = (path: string, body: unknown, key: string | null = w.keys.server) => t.call("PUT", `/v1/state/${path}`, { key, body });
const get = (path: string, key: string | null = w.keys.server) => t.call("GET", `/v1/state/${path}`, { key });
const adminCall = (method: string, path: string, body?: unknown, token: string | null = admin) =>
  t.call(method, `/admin/v1/projects/${w.projectId}/${path}`, { key: token, body });
const updatedAt = (key: string) =>
  t.app.db.query<{ updated_at: string }, [string, string]>("SELECT updated_at FROM world_state WHERE project_id = ? AND key = ?").get(w.projectId, key)?.updated_at;

beforeAll(async () => {
  t = await createTestApp({}, { loadModel: false });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  admin = ensureAdminToken(t.app.db).adminToken;
});
afterAll(() => t.close());

describe("/v1/state: the Server Key's", () => {
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc";
  const rows: Array<[string, () => string | null, number, string]> = [
    ["no key", () => null, 401, "Invalid API key"],
    ["a JWT", () => jwt, 401, "Invalid API key"],
    ["a revoked Server Key", () => w.keys.revokedServer, 401, "Invalid API key"],
    ["an Editor Key", () => w.keys.editor, 403, "Invalid authentication"],
  ];
  for (const [name, key, status, error] of rows) {
    for (const [method, path] of [["GET", "world"], ["PUT", "world"], ["GET", "players/p1"], ["PUT", "players/p1"]] as const) {
      test(`${method} ${path}: ${status} with ${name}, nothing written`, async () => {
        const r = await t.call(method, `/v1/state/${path}`, { key: key(), body: method === "PUT" ? { set: { intruder: true } } : undefined });
        expect(r).toMatchObject({ status, body: { error } });
        expect((await get("world")).body.state.intruder).toBeUndefined();
        expect((await get("players/p1")).body.state.intruder).toBeUndefined();
      });
    }
  }
});

describe("writing and reading the world's and a player's state", () => {
  test("set and unset in one write; the answer is the new state; GET reads the same", async () => {
    let r = await put("world", { set: { "quest.flood.stage": 2, weather: "rain", "bridge.open": false } });
    expect(r).toMatchObject({ status: 200, body: { state: { "quest.flood.stage": 2, weather: "rain", "bridge.open": false } } });
    r = await put("world", { set: { weather: "fog" }, unset: ["bridge.open", "never.set"] });
    expect(r.body).toEqual({ state: { "quest.flood.stage": 2, weather: "fog" } });
    expect((await get("world")).body).toEqual(r.body);
  });
  test("a player's state is the player's alone", async () => {
    const r = await put("players/hero-1", { set: { "quest.flood.stage": 3, "met.prior": true } });
    expect(r.body).toEqual({ playerId: "hero-1", state: { "met.prior": true, "quest.flood.stage": 3 } });
    expect((await get("players/hero-2")).body).toEqual({ playerId: "hero-2", state: {} });
    expect((await get("world")).body.state["quest.flood.stage"]).toBe(2);
  });
  test("the same PUT twice: the same answer, and the stored value is not rewritten", async () => {
    const body = { set: { "calendar.day": 12 } };
    const first = await put("world", body);
    const at = updatedAt("calendar.day");
    t.clock.advance(5_000);
    const second = await put("world", body);
    expect(second.body).toEqual(first.body);
    expect(updatedAt("calendar.day")).toBe(at);
    t.clock.advance(5_000);
    await put("world", { set: { "calendar.day": 13 } });
    expect(updatedAt("calendar.day")).not.toBe(at);
  });
  test("an empty body changes nothing and answers the state", async () => {
    const before = (await get("world")).body;
    expect((await put("world", {})).body).toEqual(before);
  });
  test("player ids are path segments: URL-escaped characters and the 255-character limit", async () => {
    const id = "steam:7656/ä b";
    const r = await put(`players/${encodeURIComponent(id)}`, { set: { x: 1 } });
    expect(r.body).toEqual({ playerId: id, state: { x: 1 } });
    expect((await put(`players/${"p".repeat(255)}`, { set: { x: 1 } })).status).toBe(200);
    const long = await put(`players/${"p".repeat(256)}`, { set: { x: 1 } });
    expect(long).toMatchObject({ status: 400, body: { error: "Invalid request" } });
  });
});

describe("another project's state is out of reach", () => {
  test("each key reads and writes only its own project", async () => {
    await put("world", { set: { "secret.plan": "burn the mill" } });
    await put("players/shared-id", { set: { gold: 5 } });
    expect((await get("world", other.keys.server)).body.state["secret.plan"]).toBeUndefined();
    expect((await get("players/shared-id", other.keys.server)).body).toEqual({ playerId: "shared-id", state: {} });
    await put("world", { set: { "secret.plan": "other" }, unset: ["weather"] }, other.keys.server);
    await put("players/shared-id", { set: { gold: 99 } }, other.keys.server);
    expect((await get("world")).body.state).toMatchObject({ "secret.plan": "burn the mill", weather: "fog" });
    expect((await get("players/shared-id")).body.state).toEqual({ gold: 5 });
  });
  test("the admin API addresses a project by id; another project's data stays there", async () => {
    const r = await t.call("GET", `/admin/v1/projects/${other.projectId}/state/world`, { key: admin });
    expect(r.body.state).toEqual({ "secret.plan": "other" });
    expect((await t.call("GET", `/admin/v1/projects/nope/state/world`, { key: admin })).status).toBe(404);
  });
});

describe("bad writes: 400 with every problem, nothing written", () => {
  const rows: Array<[string, unknown, RegExp]> = [
    ["not an object", [1], /body: must be an object/],
    ["an unknown field", { set: {}, merge: true }, /merge: unknown field/],
    ["set not an object", { set: [1] }, /set: must be an object/],
    ["unset not a list", { unset: "weather" }, /unset: must be a list/],
    ["a key with capitals", { set: { Weather: 1 } }, /set\.Weather: must be dot-separated names/],
    ["a reserved root", { set: { "world.x": 1 } }, /set\.world\.x: 'world' is reserved/],
    ["a prototype name", { set: { "a.constructor": 1 } }, /'constructor' is a reserved word/],
    ["__proto__", { set: JSON.parse('{"__proto__": 1}') }, /set\.__proto__: must be dot-separated/],
    ["a key too long", { set: { ["k".repeat(30) + ".k".repeat(40)]: 1 } }, /1 to 100 characters|at most 8/],
    ["a value that is an object", { set: { x: { y: 1 } } }, /set\.x: must be true or false, a finite number or a string/],
    ["a value that is null", { set: { x: null } }, /set\.x: must be true or false/],
    ["a string too long", { set: { x: "a".repeat(STATE_LIMITS.stringChars + 1) } }, /set\.x: at most 200 characters/],
    ["a key both set and unset", { set: { x: 1 }, unset: ["x"] }, /unset\[0\]: 'x' is also in set/],
    ["a bad key in unset", { unset: ["ok", "Not ok"] }, /unset\[1\]: must be/],
    ["too many keys in one write", { set: Object.fromEntries(Array.from({ length: STATE_LIMITS.keysPerScope + 1 }, (_, i) => [`k${i}`, i])) }, /set: at most 200 keys/],
  ];
  for (const [name, body, why] of rows) {
    test(name, async () => {
      const before = (await get("world")).body.state;
      const r = await put("world", body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("Invalid request");
      expect(r.body.details.join("\n")).toMatch(why);
      expect((await get("world")).body.state).toEqual(before);
    });
  }
  test("one bad value among good ones: none of them is written", async () => {
    const r = await put("world", { set: { "good.one": 1, "good.two": "x", bad: [] } });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual(["set.bad: must be true or false, a finite number or a string"]);
    expect((await get("world")).body.state["good.one"]).toBeUndefined();
  });
  test("malformed JSON is 400", async () => {
    const r = await t.call("PUT", "/v1/state/world", { key: w.keys.server, rawBody: "{" });
    expect(r).toMatchObject({ status: 400, body: { error: "Invalid request", details: ["body: malformed JSON"] } });
  });
  test("a scope past its key limit is refused whole; at the limit it is accepted", async () => {
    const player = "players/full-up";
    const fill = Object.fromEntries(Array.from({ length: STATE_LIMITS.keysPerScope }, (_, i) => [`k${i}`, i]));
    expect((await put(player, { set: fill })).status).toBe(200);
    const r = await put(player, { set: { one: 1, more: 2 }, unset: ["k0"] });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual(["set: 201 keys would be set in this scope; at most 200"]);
    const after = (await get(player)).body.state;
    expect(Object.keys(after).length).toBe(STATE_LIMITS.keysPerScope);
    expect(after.k0).toBe(0);
    expect((await put(player, { set: { one: 1 }, unset: ["k0"] })).status).toBe(200);
  });
});

describe("declarations: typed keys, defaults and exclusive groups", () => {
  const schema = {
    stateKeys: {
      "quest.flood.stage": { type: "number", default: 0 },
      "faction.watch": { type: "string", enum: ["friendly", "hostile", "neutral"], default: "neutral" },
      "pose.sitting": { type: "boolean" },
    },
    exclusiveGroups: ["pose"],
  };
  test("the admin API stores and reads them back", async () => {
    const r = await adminCall("PUT", "state/schema", schema);
    expect(r).toMatchObject({ status: 200, body: schema });
    expect((await adminCall("GET", "state/schema")).body).toEqual(schema);
    expect((await t.call("GET", `/admin/v1/projects/${other.projectId}/state/schema`, { key: admin })).body).toEqual({ stateKeys: {}, exclusiveGroups: [] });
  });
  test("a declared key takes only its type and enum", async () => {
    let r = await put("world", { set: { "quest.flood.stage": "two", "faction.watch": "frendly", "pose.sitting": 1 } });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([
      "set.quest.flood.stage: declared as number",
      'set.faction.watch: must be one of "friendly", "hostile", "neutral"',
      "set.pose.sitting: declared as boolean",
    ]);
    r = await put("players/hero-1", { set: { "faction.watch": "hostile", "pose.sitting": true } });
    expect(r.status).toBe(200);
  });
  test("setting a key of an exclusive group clears the group's other keys in that scope only", async () => {
    expect((await put("players/poser", { set: { "pose.lying.down": true, "poser.other": 1 } })).status).toBe(200);
    expect((await put("players/poser", { set: { "pose.standing": true } })).body.state).toEqual({ "pose.standing": true, "poser.other": 1 });
    await put("world", { set: { "pose.standing": true } });
    const r = await put("players/poser", { set: { "pose.sitting": true } });
    expect(r.body.state).toEqual({ "pose.sitting": true, "poser.other": 1 });
    expect((await get("world")).body.state["pose.standing"]).toBe(true);
    const both = await put("players/poser", { set: { "pose.sitting": true, "pose.kneeling": true } });
    expect(both.status).toBe(400);
    expect(both.body.details).toEqual(["set.pose.kneeling: 'pose.sitting' is set too: one key of exclusive group 'pose' at a time"]);
    // Setting the same group key again keeps it (idempotent).
    expect((await put("players/poser", { set: { "pose.sitting": true } })).body.state).toEqual({ "pose.sitting": true, "poser.other": 1 });
  });
  test("a group's keys are matched by whole segments: pose_x.* and poser.* are not in group pose", async () => {
    await put("players/seg", { set: { "pose_x.a": 1, "poser.b": 2, "pose.a": true } });
    expect((await put("players/seg", { set: { "pose.b": true } })).body.state).toEqual({ "pose.b": true, "pose_x.a": 1, "poser.b": 2 });
  });
  const bad: Array<[string, unknown, string[]]> = [
    ["unknown fields", { stateKeys: {}, groups: [] }, ["groups: unknown field"]],
    [
      "bad declarations",
      {
        stateKeys: {
          "Bad Key": { type: "number" },
          "a.b": { type: "date" },
          "c.d": { type: "number", default: "x" },
          "e.f": { type: "string", enum: ["a", "a", 3], default: "z" },
          "g.h": { type: "boolean", enum: [true] },
          "i.j": { type: "number", extra: 1 },
        },
      },
      [
        "stateKeys.Bad Key: must be dot-separated names of lower-case letters, digits and _ (each starting with a letter, at most 32 characters), e.g. quest.flood.stage",
        "stateKeys.a.b.type: must be one of boolean, number, string",
        "stateKeys.c.d.default: must be a number, as declared",
        "stateKeys.e.f.enum[1]: duplicate value \"a\"",
        "stateKeys.e.f.enum[2]: must be a string, as declared",
        "stateKeys.e.f.default: must be one of the enum's values",
        "stateKeys.g.h.enum: enum lists the allowed numbers or texts of a number or string key",
        "stateKeys.i.j.extra: unknown field",
      ],
    ],
    [
      "bad groups",
      { exclusiveGroups: ["pose", "pose", "pose.hand", "X", 3] },
      [
        "exclusiveGroups[1]: duplicate group 'pose'",
        "exclusiveGroups[3]: must be dot-separated names of lower-case letters, digits and _ (each starting with a letter, at most 32 characters), e.g. quest.flood.stage",
        "exclusiveGroups[4]: must be a key prefix such as pose",
        "exclusiveGroups[2]: 'pose.hand' lies inside group 'pose': groups do not nest",
      ],
    ],
  ];
  for (const [name, body, details] of bad) {
    test(`refused with every problem: ${name}; the stored schema is unchanged`, async () => {
      const r = await adminCall("PUT", "state/schema", body);
      expect(r).toMatchObject({ status: 400, body: { error: "Invalid request" } });
      expect(r.body.details).toEqual(details);
      expect((await adminCall("GET", "state/schema")).body).toEqual(schema);
    });
  }
  test("the admin API needs the admin token", async () => {
    expect((await adminCall("GET", "state/schema", undefined, null)).status).toBe(401);
    expect((await adminCall("PUT", "state/world", { set: { x: 1 } }, "wrong")).status).toBe(401);
    expect((await adminCall("PUT", "state/players/p", { set: { x: 1 } }, w.keys.server)).status).toBe(401);
  });
  test("the admin API writes the same state the game's key reads", async () => {
    const r = await adminCall("PUT", "state/players/from-admin", { set: { "faction.watch": "friendly" } });
    expect(r.body).toEqual({ playerId: "from-admin", state: { "faction.watch": "friendly" } });
    expect((await get("players/from-admin")).body.state).toEqual({ "faction.watch": "friendly" });
    expect((await adminCall("PUT", "state/world", { set: { "faction.watch": 1 } })).status).toBe(400);
    expect((await adminCall("GET", "state/players/from-admin")).body.state).toEqual({ "faction.watch": "friendly" });
  });
});

describe("a player's state goes with the player", () => {
  test("export holds it; erase (admin API) deletes it and says how many keys went; the world's state stays", async () => {
    await put("players/leaver", { set: { "quest.flood.stage": 4, "met.prior": true } });
    const ex = await t.call("GET", `/admin/v1/projects/${w.projectId}/players/leaver/export`, { key: admin });
    expect(ex.body.state).toEqual({ "met.prior": true, "quest.flood.stage": 4 });
    const er = await t.call("DELETE", `/admin/v1/projects/${w.projectId}/players/leaver/memories`, { key: admin });
    expect(er.body).toMatchObject({ playerId: "leaver", stateKeysDeleted: 2 });
    expect((await get("players/leaver")).body.state).toEqual({});
    expect(Object.keys((await get("world")).body.state).length).toBeGreaterThan(0);
  });
  test("the CLI erases it too", async () => {
    await put("players/cli-leaver", { set: { a: 1, b: 2, c: 3 } });
    const out: string[] = [];
    const code = await runCli(
      ["memories", "erase", "--project", w.projectId, "--player", "cli-leaver", "--json", "--data-dir", t.app.config.dataDir],
      { out: (l) => out.push(l), err: () => {} },
      {},
    );
    expect(code).toBe(0);
    expect(JSON.parse(out.join(""))).toMatchObject({ playerId: "cli-leaver", stateKeysDeleted: 3 });
    expect((await get("players/cli-leaver")).body.state).toEqual({});
  });
});

describe("Swagger", () => {
  test("the runtime state routes are under the Server Key's tag; the admin ones under Admin", async () => {
    const paths = (await t.call("GET", "/swagger/json")).body.paths;
    expect(paths["/v1/state/world"].put.tags).toEqual(["Runtime (Server Key)"]);
    expect(paths["/v1/state/players/{playerId}"].get.tags).toEqual(["Runtime (Server Key)"]);
    expect(paths["/v1/state/world"].put.requestBody.content["application/json"].schema.properties.set).toBeDefined();
    expect(paths["/admin/v1/projects/{projectId}/state/schema"].put.tags).toEqual(["Admin"]);
  });
});
