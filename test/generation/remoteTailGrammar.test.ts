// How a typed turn's tail reaches llama-server: as the local engine's compact GBNF (its `grammar` field), and as
// `json_schema` from a server that refuses a grammar. A REAL llama-server on the tiny random-weight GGUF; the
// refusal comes from a small proxy in front of it that answers any body with a `grammar` with llama-server's
// own 400 and forwards everything else, as a server without grammar support would behave.
import { afterAll, beforeAll, expect, setDefaultTimeout, test, describe } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";
import { whitespaceOutsideStrings } from "../support/jsonText.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { schemaProblem } from "../../src/generation/structured.ts";
import type { BehaviourInput } from "../../src/behaviour/behaviourModel.ts";
import type { GenerateResult } from "../../src/generation/types.ts";
import type { RemotePool } from "../../src/generation/remote/RemotePool.ts";

setDefaultTimeout(600_000);

const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/generation/remoteTailGrammar.test.ts (the tail's grammar on real llama-server)");
const suite = BIN ? describe : describe.skip;

/** A free text parameter too: its string rule (escapes, a length bound) must parse in llama-server as locally. */
const BEHAVIOUR: BehaviourInput = {
  emotions: ["neutral", "happy", "angry"],
  maxActionsPerTurn: 1,
  actions: [
    { name: "say", description: "Shout a short line.", params: { type: "object", properties: { line: { type: "string", maxLength: 12 } } } },
    { name: "give_gold", description: "Pay the player some gold.", params: { type: "object", properties: { amount: { type: "integer", minimum: 1, maximum: 500 } } } },
  ],
  trust: { min: -3, max: 3, maxStep: 2 },
};

let server: LlamaServer;
let proxy: ReturnType<typeof Bun.serve>;
const refused: number[] = [];
const forwarded: Record<string, unknown>[] = [];
const apps: TestApp[] = [];

beforeAll(async () => {
  if (!BIN) return;
  server = await startLlamaServer({ binary: BIN, model: ensureTinyModel(undefined, { nCtx: 4096 }), parallel: 2, slotContext: 4096, threads: 1 });
  proxy = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === "POST" ? await req.text() : undefined;
      if (url.pathname === "/completion" && body) {
        const parsed = JSON.parse(body) as Record<string, unknown>;
        if ("grammar" in parsed) {
          refused.push(Date.now());
          return Response.json({ error: { code: 400, message: "Failed to initialize samplers: failed to parse grammar", type: "invalid_request_error" } }, { status: 400 });
        }
        forwarded.push(parsed);
      }
      // a fresh connection each time: a pooled one llama-server has already closed fails the request (ECONNRESET)
      const res = await fetch(`${server.url}${url.pathname}${url.search}`, { method: req.method, headers: { "content-type": "application/json" }, body, keepalive: false });
      return new Response(res.body, { status: res.status, headers: res.headers });
    },
  });
}, 180_000);
afterAll(async () => {
  for (const t of apps) await t.close();
  proxy?.stop(true);
  await server?.stop();
});

async function appOn(url: string): Promise<{ t: TestApp; w: World; pool: RemotePool; tails: { r: GenerateResult; schema: object }[] }> {
  const t = await createTestApp({
    generation: "remote",
    backends: [{ url, model: "tiny", apiKey: null, maxConcurrent: 2, weight: 1, timeoutMs: 60_000, kind: "llama-server" }],
    contextSize: 4096,
    maxReplyTokens: 8,
  });
  apps.push(t);
  const w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  await t.app.scheduler.trigger("indexer");
  const admin = ensureAdminToken(t.app.db).adminToken;
  expect((await t.call("PATCH", `/admin/v1/projects/${w.projectId}/minds/${w.minds.garrick}`, { key: admin, body: { behaviour: BEHAVIOUR } })).status).toBe(200);
  const pool = t.app.ctx.generation as RemotePool;
  const tails: { r: GenerateResult; schema: object }[] = [];
  const generate = pool.generate.bind(pool);
  pool.generate = async (req) => {
    const r = await generate(req);
    if (req.tail) tails.push({ r, schema: req.tail.jsonSchema });
    return r;
  };
  return { t, w, pool, tails };
}

/** The schema without its strings' length bounds (see the first test). */
const withoutMaxLength = (s: unknown): unknown =>
  Array.isArray(s) ? s.map(withoutMaxLength) : s && typeof s === "object" ? Object.fromEntries(Object.entries(s).filter(([k]) => k !== "maxLength").map(([k, v]) => [k, k === "enum" || k === "const" ? v : withoutMaxLength(v)])) : s;

const ask = (x: { t: TestApp; w: World }, playerId: string) =>
  x.t.call("POST", "/v1/npc/interact", { key: x.w.keys.server, body: { text: "Hello there, innkeeper.", entityMindId: x.w.minds.garrick, playerId } });

suite("the tail's grammar on llama-server", () => {
  test("with a free text parameter: 40 tails, every one compact and valid under the schema", async () => {
    const x = await appOn(server.url);
    const lines: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await ask(x, `p-${i % 4}`);
      expect(r.status).toBe(200);
      expect(r.body.metadata.warnings ?? []).toEqual([]);
      for (const a of r.body.metadata.behaviour.actions) if (a.name === "say") lines.push(a.params.line);
    }
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(12);
    // a tail for each sample: 40 turns, and more when the reply guard drew a turn's words again
    expect(x.tails.length).toBeGreaterThanOrEqual(40);
    const texts = x.tails.map((t) => t.r.tail!.text);
    expect(texts.map(whitespaceOutsideStrings)).toEqual(texts.map(() => 0));
    // Valid as sampled, but for a text's length: llama.cpp's grammar counts a character per code point it decodes,
    // and takes byte sequences (past U+10FFFF, surrogates) that JavaScript decodes as a U+FFFD per byte, so random
    // weights' text can come out longer than its maxLength; the server cuts it to the bound (parseTail.ts), which
    // the settled lines above show.
    expect(x.tails.map((t) => schemaProblem(t.r.tail!.text, withoutMaxLength(t.schema) as object))).toEqual(texts.map(() => null));
  });

  test("a server that refuses the grammar: the same turn's tail goes under json_schema, and so do later ones", async () => {
    const x = await appOn(`http://127.0.0.1:${proxy.port}`);
    const before = forwarded.filter((b) => "json_schema" in b).length;
    for (let i = 0; i < 6; i++) {
      const r = await ask(x, `q-${i}`);
      expect(r.status).toBe(200);
      // the refusal cost no turn its behaviour: every tail validated
      expect(r.body.metadata.warnings ?? []).toEqual([]);
    }
    // one refusal, on the first turn; from then on the backend sends the schema without trying the grammar
    expect(refused).toHaveLength(1);
    expect(x.pool.backends[0].grammarUnsupported).toBe(true);
    // every sampled tail (six turns', and a sample the reply guard drew again) went under the schema
    expect(x.tails.length).toBeGreaterThanOrEqual(6);
    expect(forwarded.filter((b) => "json_schema" in b).length - before).toBe(x.tails.length);
    // valid as sampled but for a text's length, as in the first test (Ajv then names the first branch of the action
    // list it tried, "must NOT have additional properties"); the server cuts the text to its bound
    expect(x.tails.map((t) => schemaProblem(t.r.tail!.text, withoutMaxLength(t.schema) as object))).toEqual(x.tails.map(() => null));
    // the action gate is read only with the grammar: the first turn's reading, taken before the refusal, was not
    // applied, so no tail reports one, and each counts as sampled
    expect(x.tails.map((t) => t.r.tail!.gate)).toEqual(x.tails.map(() => undefined));
    expect(x.pool.backends[0].tailGatesUnread).toBe(6);
  });
});
