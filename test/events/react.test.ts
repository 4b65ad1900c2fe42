import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { capturePrompts } from "../support/capturePrompts.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { getProjectBalance, setPlan } from "../../src/credits/ledger.ts";
import { setRateLimits } from "../../src/ratelimit/rateLimitSettings.ts";
import { loadSession } from "../../src/npc/session/sessionStore.ts";
import { NOBODY } from "../../src/events/react.ts";
import type { ChatMessage } from "../../src/llm/types.ts";

/**
 * Unprompted lines through real llama.cpp (a tiny random-weight GGUF the suite writes: what it says does not
 * matter; what it was given, what it charged and how it answered do).
 */
setDefaultTimeout(300_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let t: TestApp;
let w: World;
let other: World;
const prompts: ChatMessage[][] = [];
const react = (mind: string, body: unknown, key: string | null = w.keys.server, headers: Record<string, string> = {}) =>
  t.call("POST", `/v1/npc/${mind}/react`, { key, body, headers });
const spent = (projectId: string) => getProjectBalance(t.app.ctx, projectId).available;
const micro = (credits: number) => Math.round(credits * 1_000_000);

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  other = buildWorld(t.app.ctx as any, "Elsewhere", { index: "none" });
  capturePrompts(t.app, prompts);
}, 120_000);
afterAll(() => t.close());

describe("POST /v1/npc/{mindId}/react", () => {
  test("the mind speaks first: the reason is rendered as what happened, never as a player's line; charged exactly", async () => {
    const before = spent(w.projectId);
    const r = await react(w.minds.garrick, { reason: "REASONMARK a stranger kicks the tavern door open" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, character: "Garrick" });
    expect(typeof r.body.response).toBe("string");
    expect(r.body.metadata.creditsUsed).toBeGreaterThan(0);
    expect(before - spent(w.projectId)).toBe(micro(r.body.metadata.creditsUsed));
    const last = prompts.at(-1)!.at(-1)!;
    expect(last.role).toBe("user");
    expect(last.content).toContain("[Nobody has spoken to you. This just happened]\nREASONMARK a stranger kicks the tavern door open");
    expect(last.content).not.toContain("[Player]");
    // said to nobody in particular: the mind's own unprompted conversation keeps it, no player's does
    expect(loadSession(t.app.ctx, w.projectId, w.minds.garrick, NOBODY).messages.map((m) => m.content)).toContain("REASONMARK a stranger kicks the tavern door open");
  });

  test("with a player, the line joins that player's conversation, and the next turn still reads it as unprompted", async () => {
    const r = await react("garrick", { reason: "GATEMARK the player walks up to the bar", playerId: "visitor" });
    expect(r.status).toBe(200);
    const session = loadSession(t.app.ctx, w.projectId, w.minds.garrick, "visitor").messages;
    expect(session.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(session[0].notes?.unprompted).toBe(true);
    const next = await t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: { text: "Hello!", entityMindId: w.minds.garrick, playerId: "visitor" } });
    expect(next.status).toBe(200);
    const user = prompts.at(-1)!.filter((m) => m.role === "user").map((m) => m.content);
    expect(user[0]).toContain("[Nobody has spoken to you. This just happened]\nGATEMARK");
    expect(user.at(-1)).toEndWith("Hello!");
    expect(user.at(-1)).not.toContain("Nobody has spoken");
  });

  test("SSE (stream: true) as interact streams: token events then done, charged for what it delivered", async () => {
    const before = spent(w.projectId);
    const res = await t.app.handle(
      new Request(`http://localhost/v1/npc/${w.minds.garrick}/react`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json" },
        body: JSON.stringify({ reason: "The bell rings for closing time", stream: true }),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = (await res.text()).trim().split("\n\n").map((b) => b.split("\n")[0].replace("event: ", ""));
    expect(events.at(-1)).toBe("done");
    expect(events.slice(0, -1).every((e) => e === "token")).toBe(true);
    expect(events.length).toBeGreaterThan(1);
    expect(before - spent(w.projectId)).toBeGreaterThan(0);
  });

  const bad: [string, unknown, RegExp][] = [
    ["no reason", {}, /reason/],
    ["blank reason", { reason: "  " }, /reason/],
    ["reason too long", { reason: "x".repeat(501) }, /reason/],
    ["unknown field", { reason: "x", text: "hi" }, /text/],
    ["playerId too long", { reason: "x", playerId: "p".repeat(256) }, /playerId/],
  ];
  for (const [name, body, detail] of bad) {
    test(`400: ${name}, nothing charged`, async () => {
      const before = spent(w.projectId);
      const r = await react(w.minds.garrick, body);
      expect(r.status).toBe(400);
      expect(r.body.details.join("\n")).toMatch(detail);
      expect(spent(w.projectId)).toBe(before);
    });
  }

  test("keys: none 401, revoked 401, editor 403; another project's mind is 404 with this project's key", async () => {
    expect((await react(w.minds.garrick, { reason: "x" }, null)).status).toBe(401);
    expect((await react(w.minds.garrick, { reason: "x" }, w.keys.revokedServer)).status).toBe(401);
    expect((await react(w.minds.garrick, { reason: "x" }, w.keys.editor)).status).toBe(403);
    const before = spent(other.projectId);
    const cross = await react(other.minds.garrick, { reason: "x" });
    expect(cross).toMatchObject({ status: 404, body: { error: "Entity Mind not found" } });
    expect(spent(other.projectId)).toBe(before);
  });

  test("rate-limited like interact; 402 when the team cannot pay", async () => {
    const p = buildWorld(t.app.ctx as any, "Tight", { index: "none" });
    setRateLimits(t.app.ctx, p.projectId, { perProjectPerMinute: 1 });
    expect((await react(p.minds.garrick, { reason: "x" }, p.keys.server)).status).toBe(200);
    const limited = await react(p.minds.garrick, { reason: "x" }, p.keys.server);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeTruthy();
    t.clock.advance(61_000);
    setPlan(t.app.ctx, p.teamId, 0);
    const broke = await react(p.minds.garrick, { reason: "x" }, p.keys.server);
    expect(broke.status).toBe(402);
  });
});

describe("react on an event", () => {
  test("the witness's line comes with the recorded event; a retry with the same key neither records nor charges again", async () => {
    const before = spent(w.projectId);
    const body = { type: "theft", description: "SHOUTMARK the player grabs a pie off the counter", playerId: "thief", witnesses: ["garrick"], react: true };
    const r = await t.call("POST", "/v1/events", { key: w.keys.server, body, headers: { "idempotency-key": "pie-1" } });
    expect(r.status).toBe(201);
    expect(r.body.event.witnesses).toEqual([w.minds.garrick]);
    expect(r.body.reaction).toMatchObject({ entityMindId: w.minds.garrick, success: true, character: "Garrick" });
    const charged = before - spent(w.projectId);
    expect(charged).toBe(micro(r.body.reaction.metadata.creditsUsed));
    expect(prompts.at(-1)!.at(-1)!.content).toContain("This just happened]\nSHOUTMARK");
    const again = await t.call("POST", "/v1/events", { key: w.keys.server, body, headers: { "idempotency-key": "pie-1" } });
    expect(again.body).toEqual(r.body);
    expect(before - spent(w.projectId)).toBe(charged);
  });

  test("an event that reacts is one request against the rate limits, not two (with a player and without)", async () => {
    for (const playerId of ["pickpocket", undefined]) {
      const p = buildWorld(t.app.ctx as any, `Counted ${playerId ?? "room"}`, { index: "none" });
      // two per minute: the reacting event, then one more request fits; a third does not
      setRateLimits(t.app.ctx, p.projectId, { perProjectPerMinute: 2, perPlayerPerMinute: 2 });
      const body = { type: "theft", description: "The player lifts a purse", witnesses: ["garrick"], react: true, ...(playerId ? { playerId } : {}) };
      const first = await t.call("POST", "/v1/events", { key: p.keys.server, body });
      expect(first.status).toBe(201);
      expect(first.body.reaction).toMatchObject({ success: true });
      const second = await t.call("POST", "/v1/events", { key: p.keys.server, body: { type: "rain", description: "It rains", witnesses: ["garrick"], ...(playerId ? { playerId } : {}) } });
      expect(second.status).toBe(201);
      const third = await t.call("POST", "/v1/events", { key: p.keys.server, body: { type: "rain", description: "It rains", witnesses: ["garrick"] } });
      expect(third.status).toBe(429);
    }
  });

  test("events alone never generate", async () => {
    const n = prompts.length;
    const r = await t.call("POST", "/v1/events", { key: w.keys.server, body: { type: "rain", description: "It rains", witnesses: ["garrick"] } });
    expect(r.status).toBe(201);
    expect(r.body.reaction).toBeUndefined();
    expect(prompts.length).toBe(n);
  });

  test("a reaction that cannot be paid for: the event is recorded, the reason is in reactionError", async () => {
    const p = buildWorld(t.app.ctx as any, "Broke", { index: "none" });
    setPlan(t.app.ctx, p.teamId, 0);
    const r = await t.call("POST", "/v1/events", { key: p.keys.server, body: { type: "a", description: "x", witnesses: ["garrick"], react: "garrick" } });
    expect(r.status).toBe(201);
    expect(r.body.reaction).toBeNull();
    expect(r.body.reactionError).toMatchObject({ status: 402, error: "Insufficient credits" });
  });
});

describe("world memories across a conversation (real turns)", () => {
  test("the first turn brings the best 3, a follow-up at most 1 more (the one its line is about); earlier ones stay", async () => {
    const p = buildWorld(t.app.ctx as any, "Chatter", { index: "none" });
    const things = ["anvil", "bridge", "candle", "dragon", "eagle", "falcon"];
    for (let i = 0; i < 6; i++) {
      const r = await t.call("POST", "/v1/events", { key: p.keys.server, body: { type: "news", description: `NEWSMARK${i} the ${things[i]} was seen`, witnesses: ["garrick"], importance: 3 + i } });
      expect(r.status).toBe(201);
    }
    const turn = async (text: string) => {
      const r = await t.call("POST", "/v1/npc/interact", { key: p.keys.server, body: { text, entityMindId: p.minds.garrick, playerId: "talker" } });
      expect(r.status).toBe(200);
      return prompts.at(-1)!.filter((m) => m.role === "user").map((m) => (m.content.match(/NEWSMARK\d/g) ?? []).length);
    };
    const first = await turn("Hello.");
    expect(first).toEqual([3]);
    expect(prompts.at(-1)!.at(-1)!.content).toContain("NEWSMARK5"); // the most important
    // nothing new is relevant: the follow-up adds nothing (the conversation already holds the best three)
    expect(await turn("How are you?")).toEqual([3, 0]);
    // a line about the least important one brings exactly that one in
    const third = await turn("What about the anvil?");
    expect(third).toEqual([3, 0, 1]);
    expect(prompts.at(-1)!.at(-1)!.content).toContain("NEWSMARK0");
  });

  test("an unprompted line to nobody is never summarised into memories", async () => {
    const p = buildWorld(t.app.ctx as any, "Quiet", { index: "none" });
    const settings = await import("../../src/projects/settings.ts");
    settings.updateSettings(t.app.ctx, p.projectId, { maxSessionLength: 2 });
    const pending = await import("../../src/npc/memory/pendingSummaryStore.ts");
    const before = pending.countPendingSummaries(t.app.db);
    for (let i = 0; i < 3; i++) expect((await react(p.minds.garrick, { reason: `Tick ${i}` }, p.keys.server)).status).toBe(200);
    expect(pending.countPendingSummaries(t.app.db)).toBe(before);
    // with a player, the conversation reaches its limit and is summarised as any other
    for (let i = 0; i < 2; i++) await react(p.minds.garrick, { reason: `Tock ${i}`, playerId: "pl" }, p.keys.server);
    expect(pending.countPendingSummaries(t.app.db)).toBeGreaterThan(before);
  });
});

describe("a mind with behaviour", () => {
  test("its unprompted line carries its emotion (and SSE sends the emotion event before done)", async () => {
    const p = buildWorld(t.app.ctx as any, "Moody", { index: "none" });
    const { ensureAdminToken } = await import("../../src/admin/adminToken.ts");
    const admin = ensureAdminToken(t.app.db).adminToken;
    const patch = await t.call("PATCH", `/admin/v1/projects/${p.projectId}/minds/${p.minds.garrick}`, { key: admin, body: { behaviour: { emotions: ["calm", "angry"] } } });
    expect(patch.status).toBe(200);
    const r = await react(p.minds.garrick, { reason: "The player knocks over a chair" }, p.keys.server);
    expect(r.status).toBe(200);
    expect(["calm", "angry"]).toContain(r.body.metadata.behaviour.emotion.name);
    const res = await t.app.handle(
      new Request(`http://localhost/v1/npc/${p.minds.garrick}/react`, {
        method: "POST",
        headers: { authorization: `Bearer ${p.keys.server}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ reason: "The player knocks over another chair", playerId: "clumsy" }),
      }),
    );
    const kinds = (await res.text()).trim().split("\n\n").map((b) => b.split("\n")[0].replace("event: ", ""));
    expect(kinds.slice(-2)).toEqual(["emotion", "done"]);
  });
});
