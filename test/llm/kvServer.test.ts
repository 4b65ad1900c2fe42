import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/App.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { readHeader } from "../../src/llm/kv/snapshotFile.ts";
import { playerConversations } from "../../src/llm/kv/forgetPlayer.ts";
import { conversationKey } from "../../src/npc/interactService.ts";
import { tempDir, testConfig } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// The server with KV snapshots on (the default): /readyz, /metrics, erasure, a restart.
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
const dir = tempDir("lorehold-kv-server-");
const clock = new ManualClock(new Date());
const config = testConfig(dir, { model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8 });
let app: App;
let w: World;

/**
 * The tiny model evaluates a few dozen tokens faster than a restore's fixed cost, so the "auto" policy
 * (never slower than cold) may rightly skip a restore here: these tests are about the plumbing.
 */
function restoreAlways(a: App): App {
  (a.ctx.llm as unknown as { warm: { options: { restore: string } } }).warm.options.restore = "always";
  return a;
}

async function call(method: string, path: string, key: string | null, body?: unknown) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}
const say = (playerId: string, text: string) => call("POST", "/v1/npc/interact", w.keys.server, { text, entityMindId: w.minds.garrick, playerId });
const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec((await call("GET", "/metrics", null)).body)?.[1] ?? NaN);

/** Conversation keys with a snapshot on disk. */
function snapshotKeys(): string[] {
  const root = join(config.dataDir, "kv");
  return readdirSync(root).flatMap((fp) =>
    readdirSync(join(root, fp))
      .filter((f) => f.endsWith(".meta"))
      .map((f) => readHeader(join(root, fp, f)))
      .filter((h) => h?.kind === "conversation")
      .map((h) => h!.key),
  );
}

beforeAll(async () => {
  app = restoreAlways(await App.create(config, { clock, logger: silentLogger }));
  w = buildWorld(app.ctx as any, "Thornhaven", { index: "none" });
  await app.scheduler.trigger("indexer");
}, 60_000);
afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("KV snapshots in the server", () => {
  test("/readyz shows the node-llama-cpp internals and the snapshot store; /metrics counts saves", async () => {
    // Different lines: a player's own words are what a snapshot adds to what another conversation shares.
    for (const p of ["anna", "bert", "cora"]) expect((await say(p, `Tell me about the town, friend. My name is ${p} of the river.`)).status).toBe(200);
    await app.ctx.llm!.kvIdle();
    const ready = await call("GET", "/readyz", null);
    expect(ready.status).toBe(200);
    expect(Object.values(ready.body.llm.internals).every((v) => v === true)).toBe(true);
    expect(ready.body.llm.kvSnapshots.files).toBeGreaterThanOrEqual(3);
    expect(ready.body.llm.kvSnapshots.bytes).toBeGreaterThan(0);
    expect(await metric("lorehold_kv_saves_total")).toBeGreaterThanOrEqual(3);
    expect(await metric("lorehold_kv_store_bytes")).toBe(ready.body.llm.kvSnapshots.bytes);
    expect(snapshotKeys().sort()).toEqual(["anna", "bert", "cora"].map((p) => conversationKey(w.projectId, w.minds.garrick, p)).sort());
  });

  test("a returning player whose sequence went to others is restored from disk (Server-Timing says so)", async () => {
    // parallel 2, three players: anna's sequence was taken by cora
    expect(app.ctx.llm!.cachedConversations()).not.toContain(conversationKey(w.projectId, w.minds.garrick, "anna"));
    const evaluated = await metric("lorehold_prompt_tokens_evaluated_total");
    const r = await say("anna", "And the mill?");
    expect(r.status).toBe(200);
    expect(r.headers.get("server-timing")).toContain('kv-restore;desc="conversation"');
    expect(await metric("lorehold_kv_restores_total")).toBeGreaterThanOrEqual(1);
    expect(await metric("lorehold_kv_restore_hit_ratio")).toBeGreaterThan(0);
    // only the new turn (its line, maybe one lore chunk, the template's markup) was evaluated
    expect((await metric("lorehold_prompt_tokens_evaluated_total")) - evaluated).toBeLessThan(app.ctx.llm!.countTokens("And the mill?") + 200);
  });

  test("erasing a player deletes its KV snapshots and nobody else's", async () => {
    const token = ensureAdminToken(app.db).adminToken;
    const r = await call("DELETE", `/admin/v1/projects/${w.projectId}/players/bert/memories`, token);
    expect(r.status).toBe(200);
    expect(snapshotKeys().sort()).toEqual(["anna", "cora"].map((p) => conversationKey(w.projectId, w.minds.garrick, p)).sort());
    expect(app.ctx.llm!.cachedConversations()).not.toContain(conversationKey(w.projectId, w.minds.garrick, "bert"));
  });

  test("after a restart, a returning player is warm", async () => {
    await app.stop();
    app = restoreAlways(await App.create(config, { clock, logger: silentLogger }));
    const r = await say("cora", "And the mill?");
    expect(r.status).toBe(200);
    expect(r.headers.get("server-timing")).toContain('kv-restore;desc="conversation"');
  });
});

describe("playerConversations", () => {
  test("matches exactly the player's conversations of the project, whatever the player id holds", () => {
    const match = playerConversations("proj_a", "steam:1:x");
    expect(match(conversationKey("proj_a", "mind_1", "steam:1:x"))).toBe(true);
    expect(match(conversationKey("proj_a", "mind_2", "steam:1:x"))).toBe(true);
    expect(match(conversationKey("proj_b", "mind_1", "steam:1:x"))).toBe(false);
    expect(match(conversationKey("proj_a", "mind_1", "x"))).toBe(false);
    expect(match(conversationKey("proj_a", "mind_1", "steam:1:xy"))).toBe(false);
  });
});
