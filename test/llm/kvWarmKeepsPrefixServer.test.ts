import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { mindStaticPrompt } from "../../src/npc/warmMinds.ts";
import { updateMind } from "../../src/lore/minds/writeMinds.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { interactIn, metricIn } from "../support/interactIn.ts";

// The server a small box runs (`parallel: 1`, KV snapshots on) while it warms its minds' prompts: new players of
// one mind through POST /v1/npc/interact. Every new player's first turn had been evaluating its whole prompt.
// Real llama.cpp on the suite's tiny model; the assertions are token counts read from /metrics and the turn's
// Server-Timing, never durations.
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
const dir = tempDir("lorehold-kv-keep-server-");
const config = testConfig(dir, { model: MODEL, parallel: 1, contextSize: 2048, maxReplyTokens: 8 });
let app: App;
let w: World;

const LINE = "Good evening. What is on the menu tonight?";
const say = (playerId: string) => interactIn(app, w.keys.server, { text: LINE, entityMindId: w.minds.garrick, playerId });
const metric = (name: string) => metricIn(app, name);
const warmed = () => app.ctx.llm!.kvStats()!.prefixWarmedTokens;
async function warmedBeyond(than: number): Promise<void> {
  while (warmed() <= than) await new Promise((r) => setImmediate(r));
}

beforeAll(async () => {
  app = await App.create(config, { clock: new ManualClock(new Date()), logger: silentLogger });
  // The tiny model evaluates a few dozen tokens faster than a restore's fixed cost: restore whenever it saves tokens.
  const warm = (app.ctx.llm as unknown as { warm: { options: { restore: string; chunkTokens: number } } }).warm;
  warm.options.restore = "always";
  warm.options.chunkTokens = 16; // many small warm-up steps: a turn finds the other mind's warm-up under way
  w = buildWorld(app.ctx as any, "Thornhaven", { index: "none" });
  // Another mind with a long prompt: its warm-up takes many steps.
  updateMind(app.ctx, w.projectId, w.minds.elena, { personality: "A smuggler who counts every barrel twice and trusts no lantern on the water. ".repeat(12) });
  await app.scheduler.trigger("indexer");
}, 60_000);
afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("parallel: 1, another mind warming", () => {
  test("the second new player of a mind starts from the mind's static prompt its first player's turn evaluated", async () => {
    const llm = app.ctx.llm!;
    const staticTokens = llm.countChatTokens([{ role: "system", content: mindStaticPrompt(app.ctx, w.projectId, w.minds.garrick)! }]);
    llm.warmMind(mindStaticPrompt(app.ctx, w.projectId, w.minds.elena)!);
    await warmedBeyond(0);
    expect((await say("newcomer-1")).status).toBe(200);
    await warmedBeyond(warmed()); // the warm-ups have the sequence again
    const before = await metric("lorehold_prompt_tokens_evaluated_total");
    const r = await say("newcomer-2");
    expect(r.status).toBe(200);
    expect(r.timing).toMatch(/kv-restore;desc="prefix"/);
    const evaluated = (await metric("lorehold_prompt_tokens_evaluated_total")) - before;
    // Its line, the lore it retrieved and the template's markup: far less than the mind's static prompt it reused.
    expect(evaluated).toBeLessThan(staticTokens / 2);
    await llm.kvIdle(); // the other mind's warm-up still finishes
    expect(llm.kvStats()!.prefixSaves).toBe(2);
  });
});
