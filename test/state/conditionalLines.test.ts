import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { capturePrompts } from "../support/capturePrompts.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { writeStateSchema } from "../../src/state/stateService.ts";
import { loadSession } from "../../src/npc/session/sessionStore.ts";
import { exportPack, serializePack } from "../../src/packs/exportPack.ts";
import { importPack, parsePackText } from "../../src/packs/importPack.ts";
import { PackSchema } from "../../src/packs/packSchema.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { apiErrorOf, newCtx } from "../packs/helpers.ts";

/**
 * Conditional hints and restrictions through the production path: a real interaction hands llama.cpp (a tiny
 * random-weight GGUF the suite writes; what it says does not matter, what it was given does) a prompt whose
 * system message is the same for every player of the mind, and whose turn carries a conditional line only
 * while its condition holds.
 */

// real llama.cpp on 2 shared cores
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
const RULE = "RULEMARK never speak of the crypt while the abbey is sealed";
const HINT = "HINTMARK you glance at the abbey bell tower";
const PLAIN = "PLAINMARK you polish a tankard";
let t: TestApp;
let w: World;
let admin: string;
let mind: string;
const prompts: ChatMessage[][] = [];

const interact = async (playerId: string, text: string, extra: Record<string, unknown> = {}) => {
  const r = await t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: { text, entityMindId: mind, playerId, ...extra } });
  expect(r.status).toBe(200);
  return prompts.at(-1)!;
};
const preview = async (playerId: string, text: string, extra: Record<string, unknown> = {}) => {
  const r = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, { key: admin, body: { text, entityMindId: mind, playerId, ...extra } });
  expect(r.status).toBe(200);
  return r.body;
};
const setPlayer = (playerId: string, set: Record<string, unknown>, unset: string[] = []) =>
  t.call("PUT", `/v1/state/players/${playerId}`, { key: w.keys.server, body: { set, unset } });
const userTurns = (p: ChatMessage[]) => p.filter((m) => m.role === "user").map((m) => m.content);

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  admin = ensureAdminToken(t.app.db).adminToken;
  writeStateSchema(t.app.ctx, w.projectId, { stateKeys: { "abbey.sealed": { type: "boolean", default: false } } });
  const r = await t.call("POST", `/admin/v1/projects/${w.projectId}/minds`, {
    key: admin,
    body: {
      entityName: "Brother Tomas",
      personality: "Quiet and careful.",
      knowledgeTags: ["tavern"],
      hints: [PLAIN, { text: HINT, when: "trust >= 0 && turn >= 1" }],
      restrictions: [{ text: RULE, when: "abbey.sealed" }],
    },
  });
  expect(r.status).toBe(201);
  mind = r.body.id;
  capturePrompts(t.app, prompts);
}, 60_000);
afterAll(() => t.close());

describe("a conditional restriction, flipped between turns", () => {
  test("false: not in the prompt; the plain hint is in the system message", async () => {
    const p = await interact("monk", "Good evening.");
    expect(p[0].content).toContain(PLAIN);
    expect(p.map((m) => m.content).join("\n")).not.toContain("RULEMARK");
    expect(p.map((m) => m.content).join("\n")).not.toContain("HINTMARK");
  });
  test("the player's flag set: the restriction is in this turn's [Now] block, never in the system message", async () => {
    expect((await setPlayer("monk", { "abbey.sealed": true })).status).toBe(200);
    const p = await interact("monk", "What lies under the abbey?");
    expect(p[0].content).not.toContain("RULEMARK");
    const last = userTurns(p).at(-1)!;
    expect(last).toContain(`[Now]\nThings you tend to do:\n- ${HINT}\nRules you never break:\n- ${RULE}\n\n[Player]\nWhat lies under the abbey?`);
  });
  test("unchanged state: the block is not repeated, and the earlier turn renders exactly as before (KV reuse)", async () => {
    const before = userTurns(prompts.at(-1)!).at(-1)!;
    const p = await interact("monk", "And the bell?");
    const turns = userTurns(p);
    expect(turns.at(-1)).toBe("And the bell?");
    expect(turns.at(-2)).toBe(before);
    expect(turns.filter((c) => c.includes("RULEMARK"))).toHaveLength(1);
  });
  test("the flag unset: the restriction leaves the conversation at once, earlier turns included; the hint stays in force", async () => {
    expect((await setPlayer("monk", {}, ["abbey.sealed"])).status).toBe(200);
    const p = await interact("monk", "Tell me now.");
    const all = p.map((m) => m.content).join("\n");
    expect(all).not.toContain("RULEMARK");
    expect(userTurns(p).at(-1)).toBe(`[Now]\nThings you tend to do:\n- ${HINT}\n\n[Player]\nTell me now.`);
    const stored = loadSession(t.app.ctx, w.projectId, mind, "monk").messages.flatMap((m) => m.notes?.now ?? []);
    // The session keeps what the prompt held: the lifted rule's block is gone, the new one is there.
    expect(stored.some((l) => l.text === RULE)).toBe(false);
    expect(stored.some((l) => l.text === HINT)).toBe(true);
  });
  test("a request's state overrides for that turn only", async () => {
    const p = await interact("monk", "Once more.", { state: { "abbey.sealed": true } });
    expect(userTurns(p).at(-1)).toContain(RULE);
    const q = await interact("monk", "And again.");
    expect(q.map((m) => m.content).join("\n")).not.toContain("RULEMARK");
  });
});

describe("the static prefix", () => {
  test("the system message is byte-identical for two players with different state", async () => {
    await setPlayer("sealed-one", { "abbey.sealed": true });
    const a = await interact("sealed-one", "Hello there, brother.");
    const b = await interact("open-one", "Hello there, brother.");
    expect(a[0].role).toBe("system");
    expect(a[0].content).toBe(b[0].content);
    expect(userTurns(a).at(-1)).toContain(RULE);
    expect(userTurns(b).at(-1)).not.toContain(RULE);
  });
});

describe("the admin preview", () => {
  test("shows each conditional line, whether it applies, and its condition", async () => {
    await setPlayer("viewer", { "abbey.sealed": true });
    const p = await preview("viewer", "Hi.");
    expect(p.conditions.lines).toEqual([
      { kind: "hint", text: HINT, when: "trust >= 0 && turn >= 1", applies: false },
      { kind: "restriction", text: RULE, when: "abbey.sealed", applies: true },
    ]);
    const q = await preview("nobody", "Hi.");
    expect(q.conditions.lines.map((l: any) => l.applies)).toEqual([false, false]);
  });
});

describe("authoring", () => {
  test("the admin API keeps lines as written, and refuses a bad condition with its path, writing nothing", async () => {
    const got = await t.call("GET", `/admin/v1/projects/${w.projectId}/minds/${mind}`, { key: admin });
    expect(got.body.restrictions).toEqual([{ text: RULE, when: "abbey.sealed" }]);
    expect(got.body.hints).toEqual([PLAIN, { text: HINT, when: "trust >= 0 && turn >= 1" }]);
    const bad = await t.call("PATCH", `/admin/v1/projects/${w.projectId}/minds/${mind}`, {
      key: admin,
      body: { restrictions: ["ok", { text: "x", when: "size(abbey) > 1" }, { text: "y", when: "abbey.sealed == 3" }] },
    });
    expect(bad.status).toBe(400);
    const details = (bad.body.details ?? []).join("\n");
    expect(details).toContain("restrictions[1].when: ");
    expect(details).toContain("restrictions[2].when: ");
    expect((await t.call("GET", `/admin/v1/projects/${w.projectId}/minds/${mind}`, { key: admin })).body.restrictions).toEqual([{ text: RULE, when: "abbey.sealed" }]);
    const shape = await t.call("PATCH", `/admin/v1/projects/${w.projectId}/minds/${mind}`, { key: admin, body: { hints: ["ok", { text: "no condition" }] } });
    expect(shape.status).toBe(400);
    expect(shape.body.details).toEqual(["hints[1].when: required: the condition under which the line applies (a plain line needs no object)"]);
  });
  test("the spec's GET /lore/minds lists only the plain lines (its shape is string[])", async () => {
    const r = await t.call("GET", "/v1/lore/minds", { key: w.keys.editor });
    const m = r.body.minds.find((x: any) => x.id === mind);
    expect(m.hints).toEqual([PLAIN]);
    expect(m.restrictions).toEqual([]);
  });
});

describe("lore packs", () => {
  const pack = {
    project: { name: "Lines" },
    state: { stateKeys: { "abbey.sealed": { type: "boolean" as const } } },
    minds: [{ key: "tomas", entityName: "Tomas", personality: "Quiet.", hints: ["plain", { text: "cond", when: "turn > 2" }], restrictions: [{ text: "rule", when: "abbey.sealed" }] }],
  };
  test("conditional lines round-trip through export and import (YAML and JSON)", () => {
    const ctx = newCtx();
    const { projectId } = importPack(ctx, pack);
    const out = exportPack(ctx, projectId);
    expect(Value.Check(PackSchema, out)).toBe(true);
    expect(out.minds![0].hints).toEqual(["plain", { text: "cond", when: "turn > 2" }]);
    expect(out.minds![0].restrictions).toEqual([{ text: "rule", when: "abbey.sealed" }]);
    for (const format of ["yaml", "json"] as const) {
      const again = newCtx();
      const r = importPack(again, parsePackText(serializePack(out, format), `p.${format}`));
      expect(exportPack(again, r.projectId)).toEqual(out);
    }
  });
  test("a bad shape, then a bad condition, is refused with the path of each problem, and nothing is written", async () => {
    const ctx = newCtx();
    const shape = structuredClone(pack) as any;
    shape.minds[0].hints = ["ok", { text: "y" }];
    const e = await apiErrorOf(() => importPack(ctx, shape));
    expect(e).toMatchObject({ status: 400, error: "Invalid lore pack" });
    expect(e.details).toEqual(["minds[0].hints[1].when: required"]);
    const cond = structuredClone(pack) as any;
    cond.minds[0].hints = ["ok", { text: "x", when: "abbey.sealed >= 2" }];
    cond.minds[0].restrictions = [{ text: "z", when: "size(abbey) > 1" }];
    const e2 = await apiErrorOf(() => importPack(ctx, cond));
    expect(e2.details.map((d) => d.split(":")[0])).toEqual(["minds[0].hints[1].when", "minds[0].restrictions[0].when"]);
    expect(ctx.db.query("SELECT COUNT(*) AS n FROM projects").get()).toEqual({ n: 0 });
  });
});
