import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { loadSession, saveSession } from "../../src/npc/session/sessionStore.ts";
import type { SessionMessage } from "../../src/npc/session/sessionTypes.ts";
import type { BehaviourInput } from "../../src/behaviour/behaviourModel.ts";

// Reporting what the game did with an NPC's actions, end to end through the interact route and the real tiny
// model. The turn that acted is put in the session as the server stores one (its ids are the server's,
// `a<turn>-<n>`), so the test does not depend on a random-weight model choosing an action; everything after
// it — the report, its place in the prompt, in the session and in later prompts — runs for real.
setDefaultTimeout(300_000);

const BEHAVIOUR: BehaviourInput = {
  emotions: ["neutral", "happy"],
  actions: [
    { name: "open_door", description: "Open a door.", params: { type: "object", properties: { door: { type: "string", enum: ["front", "back"] } } } },
    { name: "give_gold", description: "Pay the player.", params: { type: "object", properties: { amount: { type: "integer", minimum: 1, maximum: 50 } } } },
  ],
};
const ACTED: SessionMessage[] = [
  { role: "user", content: "Open the front door and pay me my five gold." },
  {
    role: "assistant",
    content: "There you are.",
    behaviour: {
      emotion: { name: "happy", intensity: 0.5 },
      actions: [
        { id: "a1-1", name: "open_door", params: { door: "front" } },
        { id: "a1-2", name: "give_gold", params: { amount: 5 } },
      ],
    },
  },
];

let t: TestApp;
let w: World;
let other: World;
let admin: string;
const interact = (world: World, playerId: string, extra: Record<string, unknown>, key = world.keys.server) =>
  t.call("POST", "/v1/npc/interact", { key, body: { text: "Did it work?", entityMindId: world.minds.garrick, playerId, ...extra } });
const preview = (playerId: string, extra: Record<string, unknown> = {}) =>
  t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, { key: admin, body: { text: "And now?", entityMindId: w.minds.garrick, playerId, ...extra } });
const userTurns = (prompt: { role: string; content: string }[]) => prompt.filter((m) => m.role === "user").map((m) => m.content);

beforeAll(async () => {
  t = await createTestApp({ model: ensureTinyModel(undefined, { nCtx: 4096 }), parallel: 1, contextSize: 4096, maxReplyTokens: 6, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  admin = ensureAdminToken(t.app.db).adminToken;
  for (const world of [w, other]) {
    const r = await t.call("PATCH", `/admin/v1/projects/${world.projectId}/minds/${world.minds.garrick}`, { key: admin, body: { behaviour: BEHAVIOUR } });
    expect(r.status).toBe(200);
  }
}, 120_000);
afterAll(() => t.close());

describe("actionResults", () => {
  test("completed and aborted results reach the turn's prompt, the session, and every later prompt", async () => {
    saveSession(t.app.ctx, { projectId: w.projectId, mindId: w.minds.garrick, playerId: "p-res" }, { messages: ACTED, tokenCount: 0 });
    const results = [
      { id: "a1-1", status: "completed" },
      { id: "a1-2", status: "aborted", detail: "the purse is empty" },
    ];
    const expected = "[Your earlier actions]\n- open_door (a1-1): completed\n- give_gold (a1-2): aborted (the purse is empty)";
    // What the model reads this turn: the reports with the action names the server gave them, before the player's line.
    const before = await preview("p-res", { actionResults: results });
    expect(before.status).toBe(200);
    expect(userTurns(before.body.prompt).at(-1)).toContain(expected);
    expect(before.body.warnings ?? []).toEqual([]);

    const r = await interact(w, "p-res", { actionResults: results });
    expect(r.status).toBe(200);
    expect(r.body.metadata.warnings ?? []).toEqual([]);
    // The session keeps them with the player's turn: names resolved, statuses and detail as reported.
    const s = loadSession(t.app.ctx, w.projectId, w.minds.garrick, "p-res").messages;
    expect(s).toHaveLength(4);
    expect(s[2].notes?.actionResults).toEqual([
      { id: "a1-1", name: "open_door", status: "completed" },
      { id: "a1-2", name: "give_gold", status: "aborted", detail: "the purse is empty" },
    ]);
    // The next turn's prompt shows them where they came in (the stored turn renders the same text again,
    // so the cache holds), and the new turn without reports carries none of its own.
    const after = await preview("p-res");
    const users = userTurns(after.body.prompt);
    expect(users.at(-2)).toContain(expected);
    expect(users.at(-2)).toEndWith("Did it work?");
    expect(users.at(-1)).not.toContain("[Your earlier actions]");
  });

  test("a later report on the same id replaces the earlier one within a request; unknown ids are a warning", async () => {
    saveSession(t.app.ctx, { projectId: w.projectId, mindId: w.minds.garrick, playerId: "p-twice" }, { messages: ACTED, tokenCount: 0 });
    const r = await interact(w, "p-twice", {
      actionResults: [
        { id: "a1-1", status: "failed", detail: "jammed" },
        { id: "a9-9", status: "completed" },
        { id: "a1-1", status: "completed" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.metadata.warnings).toEqual(["Ignored actionResults for unknown action ids: a9-9"]);
    const s = loadSession(t.app.ctx, w.projectId, w.minds.garrick, "p-twice").messages;
    expect(s[2].notes?.actionResults).toEqual([{ id: "a1-1", name: "open_door", status: "completed" }]);
  });

  test("ids belong to one conversation: another player's or another project's turn cannot report them", async () => {
    saveSession(t.app.ctx, { projectId: w.projectId, mindId: w.minds.garrick, playerId: "p-owner" }, { messages: ACTED, tokenCount: 0 });
    const results = [{ id: "a1-1", status: "completed" }];
    const stranger = await interact(w, "p-stranger", { actionResults: results });
    expect(stranger.status).toBe(200);
    expect(stranger.body.metadata.warnings).toEqual(["Ignored actionResults for unknown action ids: a1-1"]);
    expect(loadSession(t.app.ctx, w.projectId, w.minds.garrick, "p-stranger").messages[0].notes?.actionResults).toBeUndefined();
    // the same player id in another project is another conversation
    const elsewhere = await interact(other, "p-owner", { actionResults: results });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.metadata.warnings).toEqual(["Ignored actionResults for unknown action ids: a1-1"]);
    // a key of the other project cannot reach this project's mind at all
    expect((await interact(w, "p-owner", { actionResults: results }, other.keys.server)).status).toBe(404);
    expect(loadSession(t.app.ctx, w.projectId, w.minds.garrick, "p-owner").messages).toHaveLength(2);
  });

  test("a bad report is a 400 and nothing is stored", async () => {
    saveSession(t.app.ctx, { projectId: w.projectId, mindId: w.minds.garrick, playerId: "p-bad" }, { messages: ACTED, tokenCount: 0 });
    const r = await interact(w, "p-bad", { actionResults: [{ id: "a1-1", status: "done" }] });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Invalid actionResults[0].status: must be completed, failed, aborted");
    expect(loadSession(t.app.ctx, w.projectId, w.minds.garrick, "p-bad").messages).toHaveLength(2);
  });
});
