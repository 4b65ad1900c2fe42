import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { setRateLimits } from "../../src/ratelimit/rateLimitSettings.ts";

// real llama.cpp (a tiny random-weight model) on shared cores
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let t: TestApp;
let w: World;

const scenes = (method: string, path: string, body?: unknown) => t.call(method, `/v1/scenes${path}`, { key: w.keys.server, body });
const interact = (playerId: string) => t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: { text: "Hello there", entityMindId: w.minds.garrick, playerId } });
const newScene = async (playerId?: string) => {
  const r = await scenes("POST", "", { minds: [w.minds.garrick, w.minds.elena], ...(playerId ? { playerId } : {}) });
  expect(r.status).toBe(200);
  return r.body.sceneId as string;
};

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 6, threads: 1 });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  await t.app.scheduler.trigger("indexer");
}, 60_000);
afterAll(() => t.close());

/**
 * Each scene line is an interaction for the rate limits: the same per-player window as /v1/npc/interact (the
 * scene's player, or the scene itself when no player is there) and the project's window. The clock is a manual
 * one, so no hit leaves the window during a test; each test moves it past the window first.
 */
describe("scene turns under the rate limit", () => {
  test("a player over the limit gets the interact's 429, and nothing of the refused turn is written", async () => {
    t.clock.advance(61_000);
    setRateLimits(t.app.ctx, w.projectId, { perPlayerPerMinute: 2 });
    const id = await newScene("p-limited");
    expect((await interact("p-limited")).status).toBe(200);
    const first = await scenes("POST", `/${id}/turn`, { text: "Who runs this place?" });
    expect(first.status).toBe(200);
    expect(first.body.lines).toHaveLength(1);
    const before = await scenes("GET", `/${id}`);

    const refused = await scenes("POST", `/${id}/turn`, { text: "Anything else?" });
    const asInteract = await interact("p-limited");
    expect(asInteract.status).toBe(429);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: "Rate limit exceeded", retryAfter: expect.any(Number) });
    expect(Object.keys(refused.body).sort()).toEqual(Object.keys(asInteract.body).sort());
    expect(refused.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("retry-after")).toBe(String(refused.body.retryAfter));
    // Refused before anything was said: the player's line is not in the transcript, the turn is not counted.
    const after = await scenes("GET", `/${id}`);
    expect(after.body.lines).toEqual(before.body.lines);
    expect(after.body.turns).toBe(before.body.turns);

    // A minute later the window has room again.
    t.clock.advance(61_000);
    expect((await scenes("POST", `/${id}/turn`, { text: "Anything else?" })).status).toBe(200);
  });

  test("a refused turn does not cut in: the running turn goes on to its end", async () => {
    t.clock.advance(61_000);
    setRateLimits(t.app.ctx, w.projectId, { perPlayerPerMinute: 1 });
    const id = await newScene("p-cut");
    const running = scenes("POST", `/${id}/turn`, { text: "Tell me a long story." });
    // Sent while the first turn generates: over the limit, so it must not cancel it.
    const refused = await scenes("POST", `/${id}/turn`, { text: "Stop!" });
    expect(refused.status).toBe(429);
    const first = await running;
    expect(first.status).toBe(200);
    expect(first.body.metadata.cancelled).toBeUndefined();
    expect(first.body.lines).toHaveLength(1);
    setRateLimits(t.app.ctx, w.projectId, { perPlayerPerMinute: 60 });
  });

  test("every line counts: a turn of several lines stops at the limit with what was said, and the next interact is refused", async () => {
    t.clock.advance(61_000);
    setRateLimits(t.app.ctx, w.projectId, { perPlayerPerMinute: 2 });
    const id = await newScene("p-lines");
    const turn = await scenes("POST", `/${id}/turn`, { maxLines: 4, speaker: w.minds.garrick });
    expect(turn.status).toBe(200);
    // nextSpeaker may wind the chain down before the limit; whatever it said, it never said more than the limit allows.
    expect(turn.body.lines.length).toBeGreaterThanOrEqual(1);
    expect(turn.body.lines.length).toBeLessThanOrEqual(2);
    if (turn.body.lines.length === 2 && turn.body.metadata.stopped) {
      expect(turn.body.metadata.stopped).toMatchObject({ status: 429, error: "Rate limit exceeded" });
    }
    const used = turn.body.lines.length;
    // The lines used the player's window: the interacts that still fit are the ones the scene left.
    const statuses: number[] = [];
    for (let i = 0; i < 3 - used; i++) statuses.push((await interact("p-lines")).status);
    expect(statuses).toEqual([...Array(2 - used).fill(200), 429]);
  });

  test("a scene without a player is limited by its own window and by the project's", async () => {
    t.clock.advance(61_000);
    setRateLimits(t.app.ctx, w.projectId, { perPlayerPerMinute: 1, perProjectPerMinute: 2 });
    const a = await newScene();
    expect((await scenes("POST", `/${a}/turn`, {})).status).toBe(200);
    expect((await scenes("POST", `/${a}/turn`, {})).status).toBe(429);
    // Another ambient scene has its own per-player window, the project's is shared: 2 hits used of 2.
    const b = await newScene();
    expect((await scenes("POST", `/${b}/turn`, {})).status).toBe(200);
    expect((await interact("p-other")).status).toBe(429);
    setRateLimits(t.app.ctx, w.projectId, { perPlayerPerMinute: 60, perProjectPerMinute: 200 });
  });
});
