import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { runCli } from "../../src/cli/runCli.ts";
import { readHeader } from "../../src/llm/kv/snapshotFile.ts";
import { conversationKey } from "../../src/npc/interactService.ts";
import { MindWarmer, mindStaticPrompt, warmKnownMinds } from "../../src/npc/warmMinds.ts";
import { updateMind } from "../../src/lore/minds/writeMinds.ts";
import { createRelationship } from "../../src/lore/relationships/writeRelationships.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { interactIn, metricIn } from "../support/interactIn.ts";

// Minds kept warm: the shared-lore level in the prefix snapshot, re-warming after changes,
// and the CLI's erase reaching a running server's KV state. Real llama.cpp on the tiny model.
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
const dir = tempDir("lorehold-kv-minds-");
const clock = new ManualClock(new Date());
const config = testConfig(dir, { model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8 });
let app: App;
let w: World;

const say = (playerId: string, text: string, mindId = w.minds.garrick) => interactIn(app, w.keys.server, { text, entityMindId: mindId, playerId });
const metric = (name: string) => metricIn(app, name);

/** Snapshot keys on disk, by kind. */
function snapshots(kind: "conversation" | "prefix"): string[] {
  const root = join(config.dataDir, "kv");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((fp) =>
    readdirSync(join(root, fp))
      .filter((f) => f.endsWith(".meta"))
      .map((f) => readHeader(join(root, fp, f)))
      .filter((h) => h?.kind === kind)
      .map((h) => h!.key),
  );
}

beforeAll(async () => {
  app = await App.create(config, { clock, logger: silentLogger });
  // The tiny model evaluates a few dozen tokens faster than a restore's fixed cost: restore whenever it saves tokens.
  (app.ctx.llm as unknown as { warm: { options: { restore: string } } }).warm.options.restore = "always";
  w = buildWorld(app.ctx as any, "Thornhaven", { index: "none" });
  await app.scheduler.trigger("indexer");
}, 60_000);
afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the shared-lore level in the mind's prefix", () => {
  test("a new player's first turn starts from the warmed static prompt (system text and shared lore): it evaluates about its own line only", async () => {
    const text = mindStaticPrompt(app.ctx, w.projectId, w.minds.garrick)!;
    expect(text).toContain("[Lore]");
    expect(text).toContain("Garrick brews a dark porter.");
    expect(warmKnownMinds(app.ctx, app.ctx.llm!)).toBeGreaterThanOrEqual(2);
    await app.ctx.llm!.kvIdle();
    const staticTokens = app.ctx.llm!.countChatTokens([{ role: "system", content: text }]);
    const line = "Good evening. What is on the menu tonight, and who brews the porter?";
    const before = await metric("lorehold_prompt_tokens_evaluated_total");
    const r = await say("newcomer-1", line);
    expect(r.status).toBe(200);
    expect(r.timing).toMatch(/kv-restore;desc="prefix"/);
    const evaluated = (await metric("lorehold_prompt_tokens_evaluated_total")) - before;
    // Its line and the template's markup; the lore it asked about is already in the prefix (no [Lore] in its turn).
    expect(evaluated).toBeLessThan(app.ctx.llm!.countTokens(line) + 32);
    expect(evaluated).toBeLessThan(staticTokens / 2);
  });
});

describe("minds re-warm when their static prompt changes (the mind-warm job)", () => {
  // A recorder in the engine's place: what the warmer queues, and when (the engine's own warming is tested above).
  const recorder = () => {
    const calls: string[] = [];
    return { calls, warmMind: (t: string) => void calls.push(t) };
  };

  test("an edit is warmed once, after one quiet tick; unchanged minds are not warmed again", async () => {
    const rec = recorder();
    const warmer = new MindWarmer({ ...app.ctx, llm: rec as any });
    expect(warmer.tick()).toEqual({ warmed: 0, pending: 0 }); // first look: App.start warmed them
    expect(warmer.tick()).toEqual({ warmed: 0, pending: 0 });
    updateMind(app.ctx, w.projectId, w.minds.garrick, { personality: "Grumpy innkeeper who hates gossip." });
    updateMind(app.ctx, w.projectId, w.minds.garrick, { personality: "Grumpy innkeeper who hates gossip, mostly." });
    expect(warmer.tick()).toEqual({ warmed: 0, pending: 1 });
    expect(warmer.tick()).toEqual({ warmed: 1, pending: 0 });
    expect(rec.calls).toEqual([mindStaticPrompt(app.ctx, w.projectId, w.minds.garrick)!]);
    expect(rec.calls[0]).toContain("hates gossip, mostly");
    expect(warmer.tick()).toEqual({ warmed: 0, pending: 0 });
  });

  test("a relationship or a lore change re-warms the minds whose prompt shows it", async () => {
    const rec = recorder();
    const warmer = new MindWarmer({ ...app.ctx, llm: rec as any });
    warmer.tick();
    createRelationship(app.ctx, w.projectId, { fromEntityId: w.minds.garrick, toEntityId: w.minds.blank, type: "RIVAL", description: "Argues over the well" });
    warmer.tick();
    warmer.tick();
    expect(rec.calls.length).toBeGreaterThanOrEqual(1);
    expect(rec.calls.some((t) => t.includes("Argues over the well"))).toBe(true);
    rec.calls.length = 0;
    createDocument(app.ctx, w.projectId, { name: "Cellar inventory", content: "Twelve casks of porter and a wheel of cheese.", tags: ["tavern"] });
    await app.scheduler.trigger("indexer");
    warmer.tick();
    warmer.tick();
    const garrick = rec.calls.filter((t) => t.startsWith("You are Garrick"));
    expect(garrick).toHaveLength(1);
    expect(garrick[0]).toContain("Twelve casks of porter");
    // Elena sees no tavern lore: her prompt did not change, she is not warmed again.
    expect(rec.calls.some((t) => t.startsWith("You are Elena"))).toBe(false);
  });

  test("a new engine (a model change) re-warms every kept-warm mind at once", () => {
    const ctx = { ...app.ctx, llm: recorder() as any };
    const warmer = new MindWarmer(ctx);
    warmer.tick();
    const next = recorder();
    ctx.llm = next as any;
    expect(warmer.tick().warmed).toBeGreaterThanOrEqual(2);
    expect(next.calls).toContain(mindStaticPrompt(app.ctx, w.projectId, w.minds.elena)!);
  });

  test("the real engine: after the job's ticks the changed mind's new prefix is on disk and a newcomer starts from it", async () => {
    const warmer = new MindWarmer(app.ctx);
    warmer.tick();
    updateMind(app.ctx, w.projectId, w.minds.elena, { personality: "A quiet smuggler who counts everything twice." });
    warmer.tick();
    const saves = app.ctx.llm!.kvStats()!.prefixSaves;
    expect(warmer.tick().warmed).toBe(1);
    await app.ctx.llm!.kvIdle();
    expect(app.ctx.llm!.kvStats()!.prefixSaves).toBe(saves + 1);
    const r = await say("newcomer-elena", "Where does the tunnel lead?", w.minds.elena);
    expect(r.status).toBe(200);
    expect(r.timing).toMatch(/kv-restore;desc="prefix"/);
  });
});

describe("the right to be forgotten while the server runs", () => {
  test("the CLI's erase (another process) reaches the running server: resident KV state dropped, snapshots gone and not written again", async () => {
    expect((await say("dora", "My name is Dora and I smuggle wine.")).status).toBe(200);
    expect((await say("dora", "Keep it secret, friend.")).status).toBe(200);
    await app.ctx.llm!.kvIdle();
    const key = conversationKey(w.projectId, w.minds.garrick, "dora");
    expect(app.ctx.llm!.cachedConversations()).toContain(key);
    expect(snapshots("conversation")).toContain(key);

    const out: string[] = [];
    const code = await runCli(["memories", "erase", "--project", w.projectId, "--player", "dora", "--data-dir", config.dataDir, "--json"], { out: (l) => out.push(l), err: (l) => out.push(l) }, {});
    expect(code).toBe(0);
    expect(snapshots("conversation")).not.toContain(key);
    expect(app.ctx.llm!.cachedConversations()).toContain(key); // another process cannot reach this one's memory…
    // …so the CLI leaves a request. It names no player, only a hash; the server's kv-forget job applies and deletes it.
    const pending = app.db.query<{ hash: string }, []>("SELECT hash FROM kv_forget").all();
    expect(pending).toHaveLength(1);
    expect(pending[0].hash).not.toContain("dora");
    const run = await app.scheduler.trigger("kv-forget");
    expect(run!.lastResult).toEqual({ applied: 1 });
    expect(app.ctx.llm!.cachedConversations()).not.toContain(key);
    expect(app.db.query("SELECT hash FROM kv_forget").all()).toHaveLength(0);
    // Shutdown saves every unsaved conversation: Dora's is no longer one of them.
    await app.stop();
    expect(snapshots("conversation")).not.toContain(key);
    app = await App.create(config, { clock, logger: silentLogger });
    const back = await say("dora", "Do you remember me?");
    expect(back.status).toBe(200);
    expect(back.timing).not.toMatch(/kv-restore;desc="conversation"/);
  });
});
