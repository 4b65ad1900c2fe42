/**
 * Graceful shutdown over real HTTP: an interact that is generating when
 * stop() is called still gets its 200, new connections are refused, and
 * stop() resolves once it is answered (then disposes the model and closes
 * the stores).
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import { createLogger } from "../../src/ops/logger.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";

const REPLY_TOKENS = 120;
const dirs: string[] = [];
const logs: Array<Record<string, any>> = [];

/** A listening App with the tiny model and a mind that talks for REPLY_TOKENS tokens. */
async function startApp(): Promise<{ app: App; w: World; talker: string }> {
  const dir = tempDir("lorehold-shutdown-");
  dirs.push(dir);
  const model = ensureTinyModel(undefined, { nCtx: 2048 });
  const logger = createLogger("info", {}, (l) => logs.push(JSON.parse(l)));
  const app = await App.start(testConfig(dir, { model, port: 0, parallel: 2, contextSize: 2048, maxReplyTokens: REPLY_TOKENS }), {
    logger,
    clock: new ManualClock(new Date()),
  });
  const w = buildWorld(app.ctx as any, "Thornhaven", { index: "none" });
  const talker = createMind(app.ctx, w.projectId, {
    key: "talker",
    entityName: "Talker",
    personality: "Never stops talking.",
    knowledgeTags: ["tavern"],
    responseConfig: { maxTokens: REPLY_TOKENS },
  }).id;
  await app.scheduler.trigger("indexer");
  return { app, w, talker };
}

function ask(app: App, w: World, talker: string) {
  return fetch(`http://127.0.0.1:${app.port}/v1/npc/interact`, {
    method: "POST",
    headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json" },
    body: JSON.stringify({ text: "Tell me everything you know, at length.", entityMindId: talker, playerId: "p-shutdown" }),
  });
}

/** Until llama.cpp is busy with the request: then it is truly in flight. */
async function generating(app: App): Promise<void> {
  const deadline = performance.now() + 60_000;
  while ((app.ctx.llm!.stats().activeSequences ?? 0) === 0) {
    if (performance.now() > deadline) throw new Error("the generation never started");
    await Bun.sleep(1);
  }
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("stop() while an interact is generating: the reply still arrives (200), then stop() resolves", async () => {
  const { app, w, talker } = await startApp();
  expect(app.ctx.modelStatus.state).toBe("loaded");
  const base = `http://127.0.0.1:${app.port}`;
  let answeredAt = 0;
  const reply = ask(app, w, talker).then(async (res) => {
    answeredAt = performance.now();
    return { status: res.status, body: (await res.json()) as any };
  });
  await generating(app);
  const stopCalledAt = performance.now();
  expect(answeredAt).toBe(0);
  const stopping = app.stop().then(() => performance.now());

  // The listener is closed at once: a new request is refused while the old one finishes.
  await Bun.sleep(20);
  const refused = await fetch(`${base}/healthz`).then(
    () => false,
    () => true,
  );

  const r = await reply;
  const stoppedAt = await stopping;
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ success: true, character: "Talker" });
  expect(typeof r.body.response).toBe("string");
  expect(refused).toBe(true);
  expect(answeredAt).toBeGreaterThan(stopCalledAt);
  expect(stoppedAt).toBeGreaterThanOrEqual(answeredAt);
  // stop() went on to dispose the model and close the stores
  expect(app.readiness()).toMatchObject({ ready: false, storage: false });
  expect(logs.find((l) => l.msg === "in-flight requests finished")).toMatchObject({ count: 1 });
  console.error(`shutdown drain: generation ran ${Math.round(answeredAt - stopCalledAt)} ms after stop() was called`);
}, 120_000);

test("the drain is bounded: past the timeout the connection is cut, and stop() still finishes", async () => {
  const { app, w, talker } = await startApp();
  const reply = ask(app, w, talker).then(
    (res) => res.status,
    () => "connection closed",
  );
  await generating(app);
  await app.stop({ drainTimeoutMs: 1 });
  // bounded: the generation's connection was cut at the drain timeout (its log line below), not waited for
  expect(await reply).toBe("connection closed");
  expect(logs.find((l) => l.msg === "requests still running at the drain timeout: closing their connections")).toMatchObject({ level: "warn", timeoutMs: 1 });
  expect(app.readiness().ready).toBe(false);
}, 120_000);
