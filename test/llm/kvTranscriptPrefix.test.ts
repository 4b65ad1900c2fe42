import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { mindStaticPrompt, warmKnownMinds } from "../../src/npc/warmMinds.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { interactIn, metricIn } from "../support/interactIn.ts";

// A model without a chat template (a base model) reads a transcript laid out for the mind that answers: the example
// exchange after the persona, the shared lore as what the mind knows (transcriptTurn.ts). The mind's prefix snapshot
// and the prompt's token count must be rendered the same way, or a new player's first turn evaluates the whole
// prompt again. Real llama.cpp on the tiny model, its chat template removed.
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048, chatTemplate: "" });
const dir = tempDir("lorehold-kv-transcript-");
const config = testConfig(dir, { model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8 });
let app: App;
let w: World;

const say = (playerId: string, text: string, mindId = w.minds.garrick) => interactIn(app, w.keys.server, { text, entityMindId: mindId, playerId });
const metric = (name: string) => metricIn(app, name);

beforeAll(async () => {
  app = await App.create(config, { clock: new ManualClock(new Date()), logger: silentLogger });
  // The tiny model evaluates a few dozen tokens faster than a restore's fixed cost: restore whenever it saves tokens.
  (app.ctx.llm as unknown as { warm: { options: { restore: string } } }).warm.options.restore = "always";
  w = buildWorld(app.ctx as any, "Thornhaven", { index: "none" });
  await app.scheduler.trigger("indexer");
}, 60_000);
afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a base model's prefix snapshot", () => {
  test("a new player's first turn starts from the mind's warmed prompt as the transcript lays it out: it evaluates about its own line only", async () => {
    const text = mindStaticPrompt(app.ctx, w.projectId, w.minds.garrick)!;
    expect(text).toContain("[Lore]");
    expect(warmKnownMinds(app.ctx, app.ctx.llm!)).toBeGreaterThanOrEqual(2);
    await app.ctx.llm!.kvIdle();
    const staticTokens = app.ctx.llm!.countChatTokens([{ role: "system", content: text }], "Garrick");
    const line = "Good evening. What is on the menu tonight, and who brews the porter?";
    const before = await metric("lorehold_prompt_tokens_evaluated_total");
    const r = await say("newcomer-1", line);
    expect(r.status).toBe(200);
    expect(r.timing).toMatch(/kv-restore;desc="prefix"/);
    const evaluated = (await metric("lorehold_prompt_tokens_evaluated_total")) - before;
    // Its line, `Player:` and the speaker's label; the example and the shared lore are in the prefix.
    expect(evaluated).toBeLessThan(app.ctx.llm!.countTokens(line) + 32);
    expect(evaluated).toBeLessThan(staticTokens / 4);
  });

  test("the prompt's count with the speaker is the prompt the model reads", async () => {
    const llm = app.ctx.llm!;
    const messages = [
      { role: "system" as const, content: "You are Bob, a miller.\n\n[Lore]\nAbout the mill: it grinds rye." },
      { role: "user" as const, content: "[Player]\nWhat do you grind?" },
    ];
    const r = await llm.generate({ conversationKey: "count-check", messages, maxTokens: 2, speaker: "Bob", seed: 1 });
    expect(llm.countChatTokens(messages, "Bob")).toBe(r.promptTokens);
    // Without the speaker the transcript shows neither the example nor the label: fewer tokens than the model reads.
    expect(llm.countChatTokens(messages)).toBeLessThan(r.promptTokens);
  });
});
