import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import type { Config } from "../../src/config/config.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { updateSettings } from "../../src/projects/settings.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { loadSession } from "../../src/npc/session/sessionStore.ts";
import { listMemories } from "../../src/npc/memory/memoryAdmin.ts";
import { countPendingSummaries, nextPendingSummary, playerPendingSummaries, savePendingDrafts } from "../../src/npc/memory/pendingSummaryStore.ts";
import { MEMORY_SUMMARY_JOB, summaryConversationKey } from "../../src/npc/memory/summarisePending.ts";
import { playerConversations } from "../../src/llm/kv/forgetPlayer.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { createTestApp, tempDir, testConfig, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { vectorIds } from "./memoryWorld.ts";

// Real llama.cpp on the suite's tiny random-weight model. Its summaries are gibberish under the grammar, so
// what these tests assert is the checkpoint's order and durability, never a summary's content: a test that
// needs known memories puts a written summary on the row (the state a crash after the summary leaves).
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
const FLAGS: Partial<Config> = { model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 12, threads: 1 };
const LIMIT = 2;

async function setup(t: TestApp): Promise<World> {
  const w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  await t.app.scheduler.trigger("indexer");
  updateSettings(t.app.ctx, w.projectId, { maxSessionLength: LIMIT });
  return w;
}

const say = (t: TestApp, w: World, playerId: string, text: string, headers: Record<string, string> = {}) =>
  t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: { text, entityMindId: w.minds.garrick, playerId }, headers });

/** Plays a session up to its limit; returns the checkpoint turn's response. */
async function fillSession(t: TestApp, w: World, playerId: string) {
  expect((await say(t, w, playerId, "My name is Tamsin Orrick.")).body.metadata.memoryCheckpoint).toBeUndefined();
  return say(t, w, playerId, "I came up the north road with my sword.");
}

const pending = (t: TestApp, w: World, playerId: string) => playerPendingSummaries(t.app.db, w.projectId, playerId);

describe("a memory checkpoint answers first and summarises after (the app's scheduler is not started: nothing runs the job)", () => {
  let t: TestApp;
  let w: World;
  beforeAll(async () => {
    t = await createTestApp(FLAGS);
    w = await setup(t);
  });
  afterAll(() => t.close());

  test("the checkpoint turn answers with memoryCheckpoint while its session waits, whole, for the summary", async () => {
    expect((await say(t, w, "p-order", "My name is Tamsin Orrick.")).body.metadata.memoryCheckpoint).toBeUndefined();
    // Every token the engine generated before the reply arrived was the reply's (the metric counts replies only).
    const replyTokens = async () => ((await (t.app.metrics.registry.getSingleMetric("lorehold_tokens_generated_total") as any).get()).values[0]?.value ?? 0) as number;
    const [engine0, replies0] = [t.app.ctx.llm!.stats().tokensGenerated, await replyTokens()];
    const r = await say(t, w, "p-order", "I came up the north road with my sword.");
    expect(t.app.ctx.llm!.stats().tokensGenerated - engine0).toBe((await replyTokens()) - replies0);
    expect(r.status).toBe(200);
    expect(r.body.metadata.memoryCheckpoint).toBe(true);
    // The reply is out and no summary has run: the session's messages wait in a pending row, none is a memory yet.
    const [row] = pending(t, w, "p-order");
    expect(row.messages.map((m) => m.content)).toEqual(["My name is Tamsin Orrick.", expect.any(String), "I came up the north road with my sword.", r.body.response]);
    expect(row.drafts).toBeNull();
    expect(listMemories(t.app.ctx, w.projectId, "p-order")).toEqual([]);
    expect(loadSession(t.app.ctx, w.projectId, w.minds.garrick, "p-order").messages).toEqual([]);
  });

  test("the next turn starts a fresh session at once, while the summary still waits", async () => {
    const r = await say(t, w, "p-order", "Where can I sleep tonight?");
    expect(r.status).toBe(200);
    expect(r.body.metadata.memoryCheckpoint).toBeUndefined();
    expect(loadSession(t.app.ctx, w.projectId, w.minds.garrick, "p-order").messages.map((m) => m.content)).toEqual(["Where can I sleep tonight?", r.body.response]);
    expect(pending(t, w, "p-order")).toHaveLength(1);
  });

  test("SSE: `done` carries memoryCheckpoint and arrives while the summary waits", async () => {
    await say(t, w, "p-sse", "My name is Tamsin Orrick.", { accept: "text/event-stream" });
    const res = await t.app.handle(
      new Request("http://localhost/v1/npc/interact", {
        method: "POST",
        headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ text: "I came up the north road.", entityMindId: w.minds.garrick, playerId: "p-sse" }),
      }),
    );
    const events = (await res.text()).trim().split("\n\n").map((block) => {
      const [ev, data] = block.split("\n");
      return { event: ev.replace("event: ", ""), data: JSON.parse(data.replace("data: ", "")) };
    });
    const done = events.at(-1)!;
    expect(done.event).toBe("done");
    expect(done.data.metadata.memoryCheckpoint).toBe(true);
    expect(pending(t, w, "p-sse")).toHaveLength(1);
    expect(listMemories(t.app.ctx, w.projectId, "p-sse")).toEqual([]);
  });

  test("the job summarises the pending session, stores what the summary kept and deletes the row", async () => {
    const before = countPendingSummaries(t.app.db);
    expect(before).toBeGreaterThanOrEqual(2);
    const status = await t.app.scheduler.trigger(MEMORY_SUMMARY_JOB);
    expect(status?.lastError).toBeNull();
    expect(status?.lastResult).toMatchObject({ summarised: before, failed: 0, abandoned: 0, waiting: 0 });
    expect(countPendingSummaries(t.app.db)).toBe(0);
    const stored = ["p-order", "p-sse"].flatMap((p) => listMemories(t.app.ctx, w.projectId, p));
    expect(stored).toHaveLength((status?.lastResult as { memories: number }).memories);
  });

  test("erasing the player erases their pending summaries; the job then stores nothing for them", async () => {
    await fillSession(t, w, "p-erase");
    expect(pending(t, w, "p-erase")).toHaveLength(1);
    const admin = ensureAdminToken(t.app.db).adminToken;
    const r = await t.call("DELETE", `/admin/v1/projects/${w.projectId}/players/p-erase/memories`, { key: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ playerId: "p-erase", memoriesDeleted: 0, sessionsDeleted: 2, stateKeysDeleted: 0 }); // the fresh session and the pending one
    expect(pending(t, w, "p-erase")).toEqual([]);
    await t.app.scheduler.trigger(MEMORY_SUMMARY_JOB);
    expect(listMemories(t.app.ctx, w.projectId, "p-erase")).toEqual([]);
  });

  test("export lists a session awaiting its summary", async () => {
    await fillSession(t, w, "p-export");
    const admin = ensureAdminToken(t.app.db).adminToken;
    const r = await t.call("GET", `/admin/v1/projects/${w.projectId}/players/p-export/export`, { key: admin });
    expect(r.status).toBe(200);
    const withMessages = r.body.sessions.filter((s: { messages: unknown[] }) => s.messages.length > 0);
    expect(withMessages).toHaveLength(1);
    expect(withMessages[0]).toMatchObject({ entityMindId: w.minds.garrick, messages: expect.arrayContaining([{ role: "user", content: "My name is Tamsin Orrick." }]) });
  });

  test("the summary's KV state is the player's: erasing the player matches its conversation key", () => {
    const key = summaryConversationKey(w.projectId, "p:with:colons");
    expect(playerConversations(w.projectId, "p:with:colons")(key)).toBe(true);
    expect(playerConversations(w.projectId, "p")(key)).toBe(false);
    expect(playerConversations("proj_other", "p:with:colons")(key)).toBe(false);
  });
});

describe("durability: pending summaries outlive the process", () => {
  test("a crash before the summary: the next start summarises the session and deletes the row; a summary already written is stored as written", async () => {
    const dir = tempDir();
    const clock = new ManualClock(new Date());
    const open = () => App.create(testConfig(dir, FLAGS), { clock, logger: silentLogger });
    const t1 = wrap(await open(), dir, clock);
    let t2: TestApp | null = null;
    try {
      const w = await setup(t1);
      expect((await fillSession(t1, w, "p-crash")).body.metadata.memoryCheckpoint).toBe(true);
      expect((await fillSession(t1, w, "p-written")).body.metadata.memoryCheckpoint).toBe(true);
      // p-written's summary had been written when the process died, its memories not yet stored.
      const written = [{ text: "The player's name is Tamsin Orrick.", importance: 6, topics: ["name"] }];
      expect(savePendingDrafts(t1.app.db, pending(t1, w, "p-written")[0].id, written)).toBe(true);
      const crashed = pending(t1, w, "p-crash")[0].messages;
      await t1.app.stop(); // nothing ran the job (the scheduler was never started)

      t2 = wrap(await open(), dir, clock);
      expect(pending(t2, w, "p-crash").map((p) => p.messages)).toEqual([crashed]);
      t2.app.scheduler.start(); // the job runs at start
      const status = await t2.app.scheduler.trigger(MEMORY_SUMMARY_JOB);
      expect(status?.lastError).toBeNull();
      expect(countPendingSummaries(t2.app.db)).toBe(0);
      const stored = listMemories(t2.app.ctx, w.projectId, "p-written");
      expect(stored.map((m) => [m.text, m.importance, m.topics])).toEqual([["The player's name is Tamsin Orrick.", 6, ["name"]]]);
      expect(await vectorIds(t2.app.ctx, w.projectId, w.minds.garrick, "p-written")).toEqual([stored[0].id]);
    } finally {
      await t2?.app.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("in a started server the checkpoint kicks the job: the row is summarised without anyone triggering it", async () => {
    const t = await createTestApp(FLAGS);
    try {
      const w = await setup(t);
      t.app.scheduler.start();
      expect((await fillSession(t, w, "p-kick")).body.metadata.memoryCheckpoint).toBe(true);
      // The kick runs the job on the next turn of the event loop, after the reply: one timer later it runs, the
      // session still waiting for its summary (the tiny model's summary alone takes many turns of the loop).
      await new Promise((r) => setTimeout(r, 0));
      expect(t.app.scheduler.list().find((j) => j.name === MEMORY_SUMMARY_JOB)?.running).toBe(true);
      expect(pending(t, w, "p-kick")).toHaveLength(1);
      const deadline = Date.now() + 60_000;
      while (pending(t, w, "p-kick").length && Date.now() < deadline) await Bun.sleep(20);
      expect(pending(t, w, "p-kick")).toEqual([]);
      expect(nextPendingSummary(t.app.db, 0, t.clock.now().toISOString())).toBeNull();
    } finally {
      await t.close();
    }
  });
});

/** An App on a data dir of the test's choosing (two processes' lives on one dir), called like a TestApp. */
function wrap(app: App, dir: string, clock: ManualClock): TestApp {
  return {
    app,
    dir,
    clock,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      const body = opts.body !== undefined ? JSON.stringify(opts.body) : undefined;
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    },
    close: () => app.stop(),
  };
}
