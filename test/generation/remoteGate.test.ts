// The action gate on llama-server: a REAL llama-server (built by scripts/ci/backends.sh from the llama.cpp source
// node-llama-cpp ships) on the tiny random-weight GGUF the suite writes, beside the local engine on the same file.
// Random weights make every choice arbitrary, so what holds here holds because of the gate and the grammars.
// An older server (no token probabilities) is a small proxy in front of the real one that drops them from
// /completion answers, and answers a probe with the fields it would ignore.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import type { ChatMessage, GenerateRequest, GenerateResult } from "../../src/llm/types.ts";
import { RemotePool } from "../../src/generation/remote/RemotePool.ts";
import { resolveBehaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { conditionsUnavailable, offerActions } from "../../src/behaviour/offerActions.ts";
import { NO_ACTION, tailGate, tailLengthBound, tailSchema } from "../../src/behaviour/tailSchema.ts";
import { parseTail } from "../../src/behaviour/parseTail.ts";
import { BEHAVIOUR_DELIMITER } from "../../src/behaviour/behaviourPrompt.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld } from "../support/world.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import type { BehaviourInput } from "../../src/behaviour/behaviourModel.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";

setDefaultTimeout(600_000);

const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/generation/remoteGate.test.ts (the action gate on real llama-server)");
const suite = BIN ? describe : describe.skip;

const MODEL = ensureTinyModel(undefined, { nCtx: 4096 });
const REFS = { mind: [], location: [], item: ["Iron key", "Lantern"] };
// `nod` shares "no" with `none`, and the two `give_` actions share a prefix: the choices part at three points on
// this model's character tokens, so the probe reads several points in its one request.
const BEHAVIOUR: BehaviourInput = {
  emotions: ["neutral", "happy", "angry"],
  maxActionsPerTurn: 1,
  actions: [
    { name: "nod", description: "Nod at the player." },
    { name: "give_gold", description: "Pay the player.", params: { type: "object", properties: { amount: { type: "integer", minimum: 1, maximum: 50 } } } },
    { name: "give_item", description: "Hand the player an item.", params: { type: "object", properties: { item: { type: "string", "x-ref": "item" } } } },
    { name: "call_guard", description: "Shout for the guard." },
  ],
  trust: { min: -3, max: 3, maxStep: 1 },
};
const b = resolveBehaviour(BEHAVIOUR)!;
const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs: REFS }).offered;
const schema = tailSchema(b, offered, REFS);
const tailAt = (minProbability?: number) => ({
  delimiter: BEHAVIOUR_DELIMITER,
  jsonSchema: schema,
  maxTokens: tailLengthBound(schema),
  ...(minProbability !== undefined ? { gate: tailGate(b, offered, REFS, minProbability)! } : {}),
});
const LINES = ["hello traveler, what do you sell?", "give me the iron key", "the guards are coming for you", "nice weather today"];
const messages = (line: string): ChatMessage[] => [
  { role: "system", content: "You are Bram, the shopkeeper of the north gate market. ".repeat(4) },
  { role: "user", content: line },
];

let server: LlamaServer;
let old: ReturnType<typeof Bun.serve>;
const oldBodies: Record<string, unknown>[] = [];
const warnings: string[] = [];
const pools: RemotePool[] = [];
const apps: TestApp[] = [];

function poolOn(url: string): RemotePool {
  const pool = new RemotePool({
    backends: [{ url, model: "tiny", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 120_000, kind: "llama-server" }],
    defaultTimeoutMs: 120_000,
    fallbackContextSize: 4096,
    log: { warn: (msg) => warnings.push(msg) },
  });
  pools.push(pool);
  return pool;
}

beforeAll(async () => {
  if (!BIN) return;
  server = await startLlamaServer({ binary: BIN, model: MODEL, parallel: 1, slotContext: 4096, threads: 1 });
  old = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === "POST" ? await req.text() : undefined;
      if (url.pathname === "/completion" && body) oldBodies.push(JSON.parse(body));
      // a fresh connection each time: a pooled one llama-server has already closed fails the request (ECONNRESET)
      const res = await fetch(`${server.url}${url.pathname}${url.search}`, { method: req.method, headers: { "content-type": "application/json" }, body, keepalive: false });
      if (url.pathname !== "/completion") return new Response(res.body, { status: res.status, headers: res.headers });
      const strip = (r: Record<string, unknown>) => {
        delete r.completion_probabilities;
        return r;
      };
      const json = (await res.json()) as Record<string, unknown> | Record<string, unknown>[];
      return Response.json(Array.isArray(json) ? json.map(strip) : strip(json), { status: res.status });
    },
  });
}, 180_000);
afterAll(async () => {
  for (const p of pools) await p.dispose();
  for (const t of apps) await t.close();
  old?.stop(true);
  await server?.stop();
});

function actionsOf(r: GenerateResult): string[] {
  const parsed = parseTail(r.tail!.text, schema, b, offered, 1);
  expect(parsed.valid).toBe(true);
  return (JSON.parse(r.tail!.text).actions as { name: string }[]).map((a) => a.name);
}

suite("the action gate on llama-server", () => {
  test("at 0 every tail acts, above 1 none does; each tail is valid, and the reading does not depend on the threshold", async () => {
    const pool = poolOn(server.url);
    await pool.probeAll();
    const readings: Record<string, number[]> = { act: [], stay: [] };
    for (const [min, way] of [[0, "act"], [1.01, "stay"]] as const) {
      for (let s = 0; s < 6; s++) {
        const line = LINES[s % LINES.length];
        const r = await pool.generate({ conversationKey: `g:${min}:${s}`, messages: messages(line), maxTokens: 6, temperature: 1, seed: 300 + s, minTokens: 1, tail: tailAt(min) });
        const gate = r.tail!.gate!;
        expect(gate.took).toBe(way);
        expect(gate.actProbability).toBeGreaterThan(0);
        expect(gate.actProbability).toBeLessThan(1);
        const names = actionsOf(r);
        if (way === "stay") expect(names).toEqual([NO_ACTION]);
        else expect(names.length === 1 && offered.some((a) => a.name === names[0])).toBe(true);
        readings[way].push(gate.actProbability);
      }
    }
    // Same seed, same words, same server: the same reading at either threshold. (Within 0.005: the slot's cache
    // differs in which earlier batch decoded a token, and sums over differently sized batches differ in their last bits.)
    for (let s = 0; s < 6; s++) expect(Math.abs(readings.act[s] - readings.stay[s])).toBeLessThan(0.005);
    expect(pool.backends[0].tailGatesUnread).toBe(0);
    expect(pool.backends[0].status().tailGatesUnread).toBe(0);
  });

  test("the remote reading equals the local engine's for the same words (same GGUF, greedy)", async () => {
    // The server is built from the llama.cpp source node-llama-cpp ships and renders the GGUF's ChatML template as
    // node-llama-cpp's wrapper does, so greedy words agree token for token on the same CPU (checked, not assumed),
    // and both read the model's logits at the same tokens: the choices spelled as the tail's grammar writes them,
    // without the leading space this GGUF's SentencePiece tokenizer puts at a text's start (serverSpelling.ts). What
    // may still differ is the order of float sums (two builds, batches of other sizes): ~1e-6 on a probability
    // here (measured), on any CPU of the same order, as both run the same f32 model. 1e-3 is far above that and far
    // below what a wrong spelling costs: spelled with the leading space, the readings differed by 0.005-0.023.
    const engine = await LlmEngine.load({ modelPath: MODEL, threads: 1, parallel: 1, contextSize: 4096 });
    try {
      const pool = poolOn(server.url);
      await pool.probeAll();
      let compared = 0;
      for (let i = 0; i < LINES.length; i++) {
        const req: GenerateRequest = { conversationKey: `cmp:${i}`, messages: messages(LINES[i]), maxTokens: 8, temperature: 0, minTokens: 1, tail: tailAt(0.5) };
        const local = await engine.generate(req);
        const remote = await pool.generate(req);
        if (local.text !== remote.text) continue;
        compared++;
        expect(Math.abs(local.tail!.gate!.actProbability - remote.tail!.gate!.actProbability)).toBeLessThan(1e-3);
        expect(remote.tail!.gate!.took).toBe(local.tail!.gate!.took);
      }
      expect(compared).toBeGreaterThanOrEqual(LINES.length - 1);
    } finally {
      await engine.dispose();
    }
  });

  test("a server without probabilities: the choice is sampled as before, the reply keeps its shape, counted and logged once", async () => {
    const pool = poolOn(`http://127.0.0.1:${old.port}`);
    await pool.probeAll();
    const before = warnings.length;
    for (let s = 0; s < 4; s++) {
      const line = LINES[s];
      oldBodies.length = 0;
      const gated = await pool.generate({ conversationKey: `old:g:${s}`, messages: messages(line), maxTokens: 6, temperature: 0, minTokens: 1, tail: tailAt(1.01) });
      const probes = oldBodies.filter((x) => "n_probs" in x).length;
      // only the first tail probes: the server's answer tells that it has no probabilities, and later tails do not ask
      expect(probes).toBe(s === 0 ? 1 : 0);
      const plain = await pool.generate({ conversationKey: `old:p:${s}`, messages: messages(line), maxTokens: 6, temperature: 0, minTokens: 1, tail: tailAt() });
      expect(gated.tail!.gate).toBeUndefined();
      actionsOf(gated);
      // greedy on the same server: the gated tail is the ungated one (at 1.01 a gate would have forced "none")
      expect(gated.text).toBe(plain.text);
      expect(gated.tail!.text).toBe(plain.tail!.text);
    }
    expect(pool.backends[0].tailGatesUnread).toBe(4);
    expect(pool.backends[0].status().tailGatesUnread).toBe(4);
    expect(warnings.slice(before).filter((w) => w.includes("probabilities"))).toHaveLength(1);
  });
});

suite("the action gate on a backend without probabilities to give (kind openai)", () => {
  test("the tail is asked for and validated as before, and counted as ungated", async () => {
    const pool = new RemotePool({
      backends: [{ url: server.url, model: "tiny", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 120_000, kind: "openai" }],
      defaultTimeoutMs: 120_000,
      fallbackContextSize: 4096,
      log: { warn: (msg) => warnings.push(msg) },
    });
    pools.push(pool);
    await pool.probeAll();
    const r = await pool.generate({ conversationKey: "openai:0", messages: messages(LINES[0]), maxTokens: 6, temperature: 0, minTokens: 1, tail: tailAt(0.9) });
    expect(r.tail!.gate).toBeUndefined();
    expect(pool.backends[0].tailGatesUnread).toBe(1);
  });
});

suite("the action gate through /v1/npc/interact on a remote pool", () => {
  async function turns(actionGate: "on" | "off", url = server.url): Promise<{ t: TestApp; results: GenerateResult[]; actions: string[][] }> {
    const t = await createTestApp({
      generation: "remote",
      backends: [{ url, model: "tiny", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 60_000, kind: "llama-server" }],
      contextSize: 4096,
      maxReplyTokens: 8,
      actionGate,
    });
    apps.push(t);
    const w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
    await t.app.scheduler.trigger("indexer");
    const admin = ensureAdminToken(t.app.db).adminToken;
    expect((await t.call("PATCH", `/admin/v1/projects/${w.projectId}/minds/${w.minds.garrick}`, { key: admin, body: { behaviour: BEHAVIOUR } })).status).toBe(200);
    const pool = t.app.ctx.generation as RemotePool;
    const results: GenerateResult[] = [];
    const generate = pool.generate.bind(pool);
    pool.generate = async (req) => {
      const r = await generate(req);
      if (req.tail) results.push(r);
      return r;
    };
    const actions: string[][] = [];
    for (let i = 0; i < 6; i++) {
      const r = await t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: { text: LINES[i % LINES.length], entityMindId: w.minds.garrick, playerId: `p-${actionGate}-${i}` } });
      expect(r.status).toBe(200);
      expect(r.body.metadata.warnings ?? []).toEqual([]);
      actions.push(r.body.metadata.behaviour.actions.map((a: { name: string }) => a.name));
    }
    pool.generate = generate;
    return { t, results, actions };
  }

  test("on (the default): every turn's tail is gated at 0.9 and acts only where its reading reached it", async () => {
    const { results, actions } = await turns("on");
    expect(results.length).toBeGreaterThanOrEqual(6);
    const last = results.slice(-6);
    for (let i = 0; i < 6; i++) {
      const gate = last[i].tail!.gate!;
      expect(gate.took).toBe(gate.actProbability >= 0.9 ? "act" : "stay");
      expect(actions[i].length > 0).toBe(gate.took === "act");
    }
  });

  test("off: the tail is sampled as before, no reading", async () => {
    const { results } = await turns("off");
    for (const r of results) expect(r.tail!.gate).toBeUndefined();
  });

  test("a server without probabilities: the turns answer as usual, and /metrics counts each ungated tail", async () => {
    const { t, results } = await turns("on", `http://127.0.0.1:${old.port}`);
    expect(results.length).toBeGreaterThanOrEqual(6);
    for (const r of results) expect(r.tail!.gate).toBeUndefined();
    const text = await (await t.app.handle(new Request("http://localhost/metrics"))).text();
    expect(text).toMatch(new RegExp(`lorehold_backend_tail_gates_unread\\{backend="backend-0"[^}]*\\} ${results.length}\\n`));
  });
});
