// Remote generation against REAL llama-server processes (built by scripts/ci/backends.sh) loading the tiny
// random-weight GGUF the suite writes: routing by conversation, the server's prompt cache, failover when a
// backend is killed between turns and mid-stream, credits settled to the server's usage, SSE through the
// pool, memory summaries under a JSON schema.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";
import { getProjectBalance } from "../../src/credits/ledger.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { interactionCostMicro } from "../../src/credits/prices.ts";
import { conversationKey } from "../../src/npc/interactService.ts";
import { summariseSession, SUMMARY_SCHEMA } from "../../src/npc/memory/summariseSession.ts";
import { schemaProblem } from "../../src/generation/structured.ts";
import type { RemotePool } from "../../src/generation/remote/RemotePool.ts";
import type { RemoteResult } from "../../src/generation/remote/RemoteBackend.ts";

setDefaultTimeout(120_000);

const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/generation/remotePool.test.ts (remote generation on real llama-server)");
const suite = BIN ? describe : describe.skip;

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let servers: LlamaServer[] = [];
let t: TestApp;
let w: World;
let pool: RemotePool;
const seen: RemoteResult[] = [];

beforeAll(async () => {
  if (!BIN) return;
  servers = await Promise.all([0, 1].map(() => startLlamaServer({ binary: BIN, model: MODEL, parallel: 2, slotContext: 2048 })));
  t = await createTestApp({
    generation: "remote",
    backends: servers.map((s) => ({ url: s.url, model: "tiny", apiKey: null, maxConcurrent: 2, weight: 1, timeoutMs: 30_000, kind: "llama-server" as const })),
    contextSize: 2048,
    maxReplyTokens: 24,
  });
  pool = t.app.ctx.generation as RemotePool;
  // every attempt's result, as the pool returns it (observed, not replaced)
  const once = pool.generateOnce.bind(pool);
  pool.generateOnce = async (req) => {
    const r = await once(req);
    seen.push(r);
    return r;
  };
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  await t.app.scheduler.trigger("indexer");
}, 120_000);
afterAll(async () => {
  await t?.close();
  await Promise.all(servers.map((s) => s.stop()));
});

const interact = (playerId: string, text: string, headers: Record<string, string> = {}, mind = () => w.minds.garrick) =>
  t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: { text, entityMindId: mind(), playerId }, headers });
const keyOf = (playerId: string, mind = w?.minds.garrick) => conversationKey(w.projectId, mind, playerId);
/** A player whose conversation with Garrick lives on backend `i`. */
const playerOn = (i: number, prefix: string) => {
  for (let n = 0; n < 200; n++) if (pool.orderFor(keyOf(`${prefix}-${n}`))[0] === pool.backends[i]) return `${prefix}-${n}`;
  throw new Error("no key found");
};
const available = () => getProjectBalance(t.app.ctx, w.projectId).available;

suite("routing by conversation", () => {
  test("a conversation's turns stick to one backend (its slot) and follow-ups hit the server's prompt cache", async () => {
    for (const i of [0, 1]) {
      const player = playerOn(i, `sticky${i}`);
      const results: RemoteResult[] = [];
      for (const line of ["Tell me about the town.", "And the bridge?", "Who guards it?"]) {
        const r = await interact(player, line);
        expect(r.status).toBe(200);
        results.push(seen.at(-1)!);
      }
      expect(results.map((r) => r.backend)).toEqual([`backend-${i}`, `backend-${i}`, `backend-${i}`]);
      expect(new Set(results.map((r) => r.slot)).size).toBe(1);
      // llama-server reports the cached prompt tokens (timings.cache_n / usage.prompt_tokens_details.cached_tokens)
      for (const r of results.slice(1)) {
        expect(r.cachedPromptTokens).toBeGreaterThan(r.promptTokens / 2);
        expect(r.evaluatedPromptTokens).toBeLessThan(r.promptTokens / 2);
      }
    }
    const status = pool.status();
    expect(status.every((s) => s.state === "up" && s.cachedPromptTokens > 0 && s.contextSize === 2048)).toBe(true);
  });
  test("replies are cleaned as the local engine's and credits settle to the server's usage", async () => {
    const before = available();
    const samplesBefore = seen.length;
    const r = await interact(playerOn(0, "credits"), "Hello there");
    // the turn's samples as the server reported them: one, or more when the reply guard drew again (e.g. for a
    // made-up number) or the pool resampled an empty reply
    const samples = seen.slice(samplesBefore);
    expect(samples.length).toBeGreaterThan(0);
    for (const used of samples) expect(used.usageReported).toBe(true);
    expect(r.body.response).not.toMatch(/<\|im_(start|end)\|>/);
    expect(r.body.response).toBe(r.body.response.trim());
    // the charge settles to the server's usage: exactly the sample's prompt and reply when the turn had one sample;
    // with more, the returned one's and the others' generated tokens on top
    const charged = before - available();
    expect(Math.round(r.body.metadata.creditsUsed * 1_000_000)).toBe(charged);
    const one = interactionCostMicro(t.app.config.prices, samples.at(-1)!.promptTokens, samples.at(-1)!.completionTokens);
    if (samples.length === 1) expect(charged).toBe(one);
    else expect(charged).toBeGreaterThan(one);
  });
  test("SSE through the pool: token events add up to the done event's reply", async () => {
    const res = await t.app.handle(
      new Request("http://localhost/v1/npc/interact", {
        method: "POST",
        headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ text: "Hello", entityMindId: w.minds.garrick, playerId: "p-sse" }),
      }),
    );
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    const done = events.at(-1)!;
    expect(done.event).toBe("done");
    expect(events.filter((e) => e.event === "token").map((e) => e.data.text).join("").trim()).toBe(done.data.response);
  });
  test("a client that disconnects mid-stream cancels the upstream generation", async () => {
    const chatty = createMind(t.app.ctx, w.projectId, { key: "chatty", entityName: "Chatty", personality: "Talks on and on.", knowledgeTags: ["tavern"], responseConfig: { maxTokens: 1500 } }).id;
    t.app.config.maxReplyTokens = 1500;
    try {
      const abort = new AbortController();
      const res = await t.app.handle(
        new Request("http://localhost/v1/npc/interact", {
          method: "POST",
          signal: abort.signal,
          headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ text: "Tell me everything.", entityMindId: chatty, playerId: "p-leaves" }),
        }),
      );
      const reader = res.body!.getReader();
      await reader.read(); // the first token event
      await reader.cancel();
      abort.abort();
      const backend = pool.backends.find((b) => b.name === pool.orderFor(keyOf("p-leaves", chatty))[0].name)!;
      const server = servers[pool.backends.indexOf(backend)];
      const busy = async () => ((await (await fetch(`${server.url}/slots`)).json()) as { is_processing: boolean }[]).some((s) => s.is_processing);
      const until = Date.now() + 3_000;
      while ((backend.inFlight > 0 || (await busy())) && Date.now() < until) await Bun.sleep(20);
      expect(backend.inFlight).toBe(0);
      expect(await busy()).toBe(false);
      expect(seen.at(-1)!.finishReason).toBe("abort");
    } finally {
      t.app.config.maxReplyTokens = 24;
    }
  });
  test("/readyz and /metrics show each backend", async () => {
    const ready = await t.call("GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.generation.mode).toBe("remote");
    expect(ready.body.generation.backends.map((b: any) => [b.name, b.url, b.kind, b.state])).toEqual(
      servers.map((s, i) => [`backend-${i}`, s.url, "llama-server", "up"]),
    );
    const metrics = await t.app.handle(new Request("http://localhost/metrics"));
    const text = await metrics.text();
    for (let i = 0; i < 2; i++) expect(text).toContain(`lorehold_backend_up{backend="backend-${i}",url="${servers[i].url}",kind="llama-server"} 1`);
    expect(text).toMatch(/lorehold_backend_cached_prompt_tokens\{backend="backend-0"[^}]*\} [1-9]/);
    // the Studio's project overview lists them too
    const admin = ensureAdminToken(t.app.db).adminToken;
    const ov = await t.call("GET", `/admin/v1/projects/${w.projectId}/overview`, { key: admin });
    expect(ov.body.model.state).toBe("remote");
    expect(ov.body.generation.backends.map((b: any) => [b.url, b.state])).toEqual(servers.map((s) => [s.url, "up"]));
  });
});

suite("structured generation", () => {
  test("memory summaries come back valid under the JSON schema (llama-server's json_schema grammar)", async () => {
    // The summary schema's shape without its string lengths: random weights emit stray UTF-8 bytes, which the
    // grammar counts differently from a JSON validator (a real model writes whole characters).
    const shape = JSON.parse(JSON.stringify(SUMMARY_SCHEMA, (k, v) => (k === "maxLength" ? undefined : v)));
    const ask = (jsonSchema: object, seed: number) =>
      pool.generate({ conversationKey: `summary-${seed}`, messages: [{ role: "user", content: "List memories as JSON." }], maxTokens: 1200, jsonSchema, temperature: 0.2, seed }) as Promise<
        RemoteResult & { valid: boolean; repairs: number }
      >;
    for (const seed of [1, 2, 3]) {
      const r = await ask(shape, seed);
      expect(r.finishReason).toBe("stop");
      expect(schemaProblem(r.text, shape)).toBeNull();
      expect([r.valid, r.repairs]).toEqual([true, 0]);
    }
    // Under the full schema: parseable JSON every time; an invalid one got exactly one repair turn (bounded).
    const before = seen.length;
    const full = await ask(SUMMARY_SCHEMA, 4);
    expect(() => JSON.parse(full.text)).not.toThrow();
    expect(seen.length - before).toBe(full.valid ? 1 + full.repairs : 2);
    const summary = await summariseSession(
      pool,
      {
        mindName: "Garrick",
        playerId: "p-sum",
        messages: [
          { role: "user", content: "I am Mira, a smith from the north. I owe you ten gold." },
          { role: "assistant", content: "Then pay me by the next moon." },
        ],
      },
      { maxTokens: 400, seed: 5 },
    );
    expect(Array.isArray(summary.memories)).toBe(true);
    expect(summary.promptTokens).toBeGreaterThan(0);
    for (const m of summary.memories) expect(m.text.length).toBeLessThanOrEqual(300);
  });
});

suite("failover (runs last: kills backends)", () => {
  test("killed between turns: the next turn goes to the other backend, charged once, and comes back after recovery", async () => {
    const player = playerOn(1, "failover");
    expect((await interact(player, "Hello")).status).toBe(200);
    expect(seen.at(-1)!.backend).toBe("backend-1");
    await servers[1].kill();
    const before = available();
    const r = await interact(player, "Are you still there?");
    expect(r.status).toBe(200);
    expect(seen.at(-1)!.backend).toBe("backend-0");
    expect(before - available()).toBe(Math.round(r.body.metadata.creditsUsed * 1_000_000));
    // either the attempt on the dead backend failed (connection refused) and was retried, or a health probe got there first
    expect(pool.status()[1].errors + (pool.status()[1].state === "down" ? 1 : 0)).toBeGreaterThanOrEqual(1);
    await pool.probeAll();
    expect(pool.status()[1].state).toBe("down");
    await servers[1].restart();
    await pool.probeAll();
    expect(pool.status()[1].state).toBe("up");
    expect((await interact(player, "Back again.")).status).toBe(200);
    expect(seen.at(-1)!.backend).toBe("backend-1");
  });
  test("killed mid-stream: an SSE error event with the spec's 503 message, the reservation released", async () => {
    // A long reply (the tiny model writes ~4 tokens/ms; random weights stop after 300–1,500 tokens), so the
    // kill lands while the server is still streaming.
    const bard = createMind(t.app.ctx, w.projectId, { key: "bard", entityName: "Bard", personality: "Never stops talking.", knowledgeTags: ["tavern"], responseConfig: { maxTokens: 1500 } }).id;
    t.app.config.maxReplyTokens = 1500;
    const player = (() => {
      for (let n = 0; n < 200; n++) if (pool.orderFor(keyOf(`midstream-${n}`, bard))[0] === pool.backends[0]) return `midstream-${n}`;
      throw new Error("no key found");
    })();
    const before = available();
    const res = await t.app.handle(
      new Request("http://localhost/v1/npc/interact", {
        method: "POST",
        headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ text: "Tell me a long story.", entityMindId: bard, playerId: player }),
      }),
    );
    // The response starts at the first token: kill the backend now, mid-reply.
    await servers[0].kill();
    const events = parseSse(await res.text());
    t.app.config.maxReplyTokens = 24;
    expect(events[0].event).toBe("token");
    expect(events.at(-1)).toEqual({ event: "error", data: { error: "Generation failed" } });
    expect(available()).toBe(before);
    // with backend-0 down the same player is served by backend-1
    const next = await interact(player, "Hello?", {}, () => bard);
    expect(next.status).toBe(200);
    expect(seen.at(-1)!.backend).toBe("backend-1");
  });
  test("no backend left: 503 Generation failed, nothing charged", async () => {
    await servers[1].kill();
    const before = available();
    const r = await interact("p-none", "Anyone?");
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ error: "Generation failed" });
    expect(available()).toBe(before);
    await pool.probeAll();
    const ready = await t.call("GET", "/readyz");
    expect(ready.body.generation.backends.map((b: any) => b.state)).toEqual(["down", "down"]);
    expect(ready.status).toBe(503);
  });
});

function parseSse(text: string): { event: string; data: any }[] {
  return text
    .trim()
    .split("\n\n")
    .map((block) => {
      const [ev, data] = block.split("\n");
      return { event: ev.replace("event: ", ""), data: JSON.parse(data.replace("data: ", "")) };
    });
}
