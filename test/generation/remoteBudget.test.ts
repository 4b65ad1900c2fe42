// A remote backend whose slots are smaller than Lorehold's own context: a REAL llama-server started with
// `-c 1024 -np 2` on the suite's tiny random-weight GGUF trained for 512 tokens (512 a slot), behind
// generation = "remote" with Lorehold's contextSize at 2,048. Every turn is fitted to the server's 512
// (its /props), through the production path (POST /v1/npc/interact); the preview shows the fit; a prompt the
// server still refuses as too long is tried once, not twice, and the server's own context is learnt from it.
// Nothing asserted depends on what the random model samples: the bounds are token counts (the prompt by the
// server's tokenizer, the reply by its cap) and statuses, the same on any x86-64 CPU.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { addBigPersona, PROMPT_WORDS } from "../support/bigPersona.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { getProjectBalance } from "../../src/credits/ledger.ts";
import { createLogger } from "../../src/ops/logger.ts";
import type { RemotePool } from "../../src/generation/remote/RemotePool.ts";
import type { RemoteResult } from "../../src/generation/remote/RemoteBackend.ts";
import { ContextOverflowError } from "../../src/generation/remote/attemptErrors.ts";
import { staticPromptPieces } from "../../src/npc/prompt/fitStaticPrompt.ts";
import { loadMindProfile } from "../../src/npc/mindProfile.ts";
import { sharedLoreFor } from "../../src/npc/sharedLore/sharedLore.ts";

setDefaultTimeout(120_000);

const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/generation/remoteBudget.test.ts (a remote backend with a small context per slot)");
const suite = BIN ? describe : describe.skip;

const SLOT = 512;
const MODEL = ensureTinyModel(undefined, { nCtx: SLOT, extraWords: PROMPT_WORDS });
const logLines: string[] = [];
let server: LlamaServer;
let t: TestApp;
let w: World;
let minds: { bram: string; hopeless: string };
let pool: RemotePool;
let admin: string;
const seen: RemoteResult[] = [];

beforeAll(async () => {
  if (!BIN) return;
  server = await startLlamaServer({ binary: BIN, model: MODEL, parallel: 2, slotContext: SLOT });
  const logger = createLogger("warn", {}, (line) => logLines.push(line));
  // Two pool entries on the one server: a retry would go to the second, so the server's request count shows it.
  const backend = { url: server.url, model: "tiny", apiKey: null, maxConcurrent: 2, weight: 1, timeoutMs: 30_000, kind: "llama-server" as const };
  t = await createTestApp({ generation: "remote", backends: [backend, { ...backend }], contextSize: 2048, threads: 1 }, { logger });
  pool = t.app.ctx.generation as RemotePool;
  const once = pool.generateOnce.bind(pool);
  pool.generateOnce = async (req) => {
    const r = await once(req);
    seen.push(r);
    return r;
  };
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  minds = addBigPersona(t.app.ctx, w);
  await t.app.scheduler.trigger("indexer");
  admin = ensureAdminToken(t.app.db).adminToken;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await server?.stop();
});

const body = (playerId: string, text: string, mind = minds.bram) => ({ text, entityMindId: mind, playerId });
const interact = (playerId: string, text: string, mind = minds.bram) => t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: body(playerId, text, mind) });
const requests = () => pool.backends.reduce((n, b) => n + b.requests, 0);

suite("a llama-server with 512 tokens a slot behind a Lorehold configured for 2,048", () => {
  test("the server's slot context is what the pool and /readyz report", async () => {
    expect(t.app.config.contextSize).toBe(2048);
    expect(pool.contextSize).toBe(SLOT);
    const ready = await t.call("GET", "/readyz");
    expect(ready.body.generation.backends.map((b: any) => b.contextSize)).toEqual([SLOT, SLOT]);
  });

  test("every turn of a conversation is answered (200 with a reply), within the server's context by its own count", async () => {
    for (const line of ["Who are you?", "What do you carry across the river at night?", "And the toll?", "Who are your friends?"]) {
      const before = requests();
      const samplesBefore = seen.length;
      const r = await interact("p-remote", line);
      expect(r.status).toBe(200);
      expect(r.body.character).toBe("Bram");
      expect(typeof r.body.response).toBe("string");
      // one server request for each sample the reply guard asked for (it may draw again, e.g. for a made-up number):
      // none of them refused for its size and retried on the other pool entry
      expect(seen.length).toBeGreaterThan(samplesBefore);
      expect(requests() - before).toBe(seen.length - samplesBefore);
      // llama-server's own usage: the prompt it evaluated and the reply, within its slot, for every sample it finished
      // (a sample the guard stops at its opening, an echo or a meta line of the random model, ends before the server
      // reports usage; a sample drawn again for a made-up number or name makes such a stop likelier)
      for (const used of seen.slice(samplesBefore)) {
        if (used.finishReason === "abort") continue;
        expect(used.usageReported).toBe(true);
        expect(used.promptTokens + used.completionTokens).toBeLessThanOrEqual(SLOT);
      }
    }
  });

  test("the preview shows the budget fitted to the backend: its context, the reply, what the static prompt left out", async () => {
    const r = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, { key: admin, body: body("p-preview", "Who are you?") });
    expect(r.status).toBe(200);
    const b = r.body.budget;
    expect(b.contextSize).toBe(SLOT);
    expect(b.fits).toBe(true);
    expect(b.dropped[0].part).toBe("sharedLore");
    expect(b.dropped.map((d: any) => d.part)).toContain("relationships");
    expect(r.body.prompt[0].content).toContain("- Never names the smugglers");
    // the prompt as the server renders (its chat template) and tokenizes it, and the reply, fit its slot
    const rendered = (await (await fetch(`${server.url}/apply-template`, { method: "POST", body: JSON.stringify({ messages: r.body.prompt }) })).json()) as { prompt: string };
    const exact = await pool.backends[0].tokenize(rendered.prompt);
    expect(exact! + r.body.replyTokens).toBeLessThanOrEqual(SLOT);
  });

  test("the static prompt is the same for every player of the mind (one KV prefix on the server), fitted by exact counts", async () => {
    const a = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, { key: admin, body: body("p-a", "Hello.") });
    const c = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, { key: admin, body: body("p-c", "Tell me everything about the ropes and the tolls?") });
    expect(c.body.prompt[0]).toEqual(a.body.prompt[0]);
    // Every piece the fit counted, and the text it chose, counted by the server's tokenizer (not the pool's running
    // estimate, which moves): what makes the choice the same on every turn and in every Lorehold process.
    const mind = loadMindProfile(t.app.ctx, w.projectId, minds.bram);
    const pieces = [...staticPromptPieces(mind, sharedLoreFor(t.app.ctx, w.projectId, mind, mind.knowledgeTags)), a.body.prompt[0].content];
    const exact: (number | null)[] = [];
    for (const p of pieces) exact.push(await pool.backends[0].tokenize(p)); // one at a time: llama-server's HTTP threads are few
    expect(pieces.map((p): number | null => pool.countTokens(p))).toEqual(exact);
    expect(a.body.budget.staticTokens).toBe(exact.at(-1));
  });

  test("a prompt the server refuses as longer than its context is sent once, not retried; the server's context is learnt", async () => {
    // A pool that believes its servers have 4,096 tokens a slot (as a server restarted with a smaller -c looks).
    for (const b of pool.backends) b.contextSize = 4096;
    try {
      const before = requests();
      logLines.length = 0;
      const r = await interact("p-stale", "Who are you?");
      expect(r.status).toBe(503);
      expect(r.body.error).toBe("Generation failed");
      expect(requests()).toBe(before + 1);
      const logged = logLines.map((l) => JSON.parse(l));
      expect(logged.filter((l) => l.level === "error").length).toBe(1);
      expect(logged.filter((l) => l.level === "warn" && l.msg === "generation backend failed")).toEqual([]);
      expect(JSON.stringify(logged)).toContain("exceeds the available context size");
      // the refusing server said its context: the next turn is fitted to it and answered
      expect(pool.contextSize).toBe(SLOT);
      expect((await interact("p-stale", "Who are you?")).status).toBe(200);
    } finally {
      for (const b of pool.backends) b.contextSize = SLOT;
    }
  });

  test("the pool itself: an overflow is a ContextOverflowError after one attempt, and the backend stays up", async () => {
    const before = requests();
    const err = await pool
      .generate({ conversationKey: "overflow", messages: [{ role: "user", content: "river ".repeat(2000) }], maxTokens: 8, minTokens: 1 })
      .then(() => null, (e) => e);
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect(err.contextSize).toBe(SLOT);
    expect(requests()).toBe(before + 1);
    expect(pool.status().every((s) => s.state === "up")).toBe(true);
  });

  test("a mind whose core alone exceeds the server's context: one 503 and one error line, nothing sent to the server, nothing charged", async () => {
    const before = requests();
    const balance = getProjectBalance(t.app.ctx, w.projectId).available;
    logLines.length = 0;
    const r = await interact("p-hopeless", "Hello?", minds.hopeless);
    expect(r.status).toBe(503);
    expect(r.body.error).toBe("Generation failed");
    expect(requests()).toBe(before);
    const errors = logLines.map((l) => JSON.parse(l)).filter((l) => l.level === "error");
    expect(errors.length).toBe(1);
    expect(errors[0].contextSize).toBe(SLOT);
    expect(getProjectBalance(t.app.ctx, w.projectId).available).toBe(balance);
  });
});
