// A remote turn against the local engine's, on a REAL llama-server (built by scripts/ci/backends.sh from the llama.cpp
// source node-llama-cpp ships) loading the tiny random-weight GGUF the suite writes, beside node-llama-cpp on the same
// file: the words phase's prompt and sampling are the local engine's, an empty reply is sampled once more as the local
// engine does, and the action gate's choices are spelled by the server as the local engine spells them. This GGUF's
// tokenizer is a SentencePiece one (a leading space at a text's start), which is what makes the spelling differ when
// done naively.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { LlamaModel, Token } from "node-llama-cpp";
import { sharedLlama } from "../../src/llm/llamaRuntime.ts";
import { grammarStepsOf } from "../../src/llm/internals.ts";
import { ForcedText } from "../../src/llm/forcedText.ts";
import { serverCalls } from "../../src/generation/remote/completeStructured.ts";
import { serverSpellings } from "../../src/generation/remote/serverSpelling.ts";
import { RemotePool } from "../../src/generation/remote/RemotePool.ts";
import { resolveBehaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { conditionsUnavailable, offerActions } from "../../src/behaviour/offerActions.ts";
import { tailGate, tailLengthBound, tailSchema } from "../../src/behaviour/tailSchema.ts";
import { BEHAVIOUR_DELIMITER } from "../../src/behaviour/behaviourPrompt.ts";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { chatWrapperFor } from "../../src/llm/transcriptChatWrapper.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";

setDefaultTimeout(600_000);

const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/generation/remoteWords.test.ts (remote turns against the local engine's)");
const suite = BIN ? describe : describe.skip;

const MODEL = ensureTinyModel(undefined, { nCtx: 4096 });
const b = resolveBehaviour({
  emotions: ["neutral", "happy"],
  maxActionsPerTurn: 1,
  actions: [
    { name: "nod", description: "Nod at the player." },
    { name: "give_gold", description: "Pay the player.", params: { type: "object", properties: { amount: { type: "integer", minimum: 1, maximum: 50 } } } },
  ],
})!;
const REFS = { mind: [], location: [], item: [] };
const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs: REFS }).offered;
const schema = tailSchema(b, offered, REFS);
const gate = tailGate(b, offered, REFS, 0.5)!;
const CHOICES = [gate.stay.choice, ...gate.act.choices].map((n) => `${gate.prefix}${n}"`);

let server: LlamaServer;
let model: LlamaModel;
let forced: ForcedText;
let proxy: ReturnType<typeof Bun.serve>;
const seen: { path: string; body: Record<string, unknown> }[] = [];
/** changes a words request's body before it goes on (n: its number since the hook was set) */
let alterChat: ((body: Record<string, unknown>, n: number) => void) | null = null;
let chats = 0;
const post = async (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

beforeAll(async () => {
  if (!BIN) return;
  server = await startLlamaServer({ binary: BIN, model: MODEL, parallel: 1, slotContext: 4096, threads: 1 });
  const llama = await sharedLlama(1);
  model = await llama.loadModel({ modelPath: MODEL });
  // the local engine's spelling of a tail's forced text (SamplingControls.forced)
  forced = new ForcedText(model, grammarStepsOf(llama)!);
  // passes everything on, and keeps what the pool sent
  proxy = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const text = req.method === "POST" ? await req.text() : undefined;
      let body = text;
      if (text) {
        const parsed = JSON.parse(text);
        seen.push({ path: url.pathname, body: parsed });
        if (url.pathname === "/v1/chat/completions" && alterChat) {
          alterChat(parsed, chats++);
          body = JSON.stringify(parsed);
        }
      }
      // a fresh connection each time: a pooled one llama-server has already closed fails the request (ECONNRESET)
      const res = await fetch(`${server.url}${url.pathname}${url.search}`, { method: req.method, headers: { "content-type": "application/json" }, body, keepalive: false });
      return new Response(res.body, { status: res.status, headers: res.headers });
    },
  });
}, 180_000);
afterAll(async () => {
  proxy?.stop(true);
  await model?.dispose();
  await server?.stop();
});

function poolOnProxy(): RemotePool {
  return new RemotePool({
    backends: [{ url: `http://127.0.0.1:${proxy.port}`, model: "tiny", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 120_000, kind: "llama-server" }],
    defaultTimeoutMs: 120_000,
    fallbackContextSize: 4096,
  });
}

const MESSAGES: ChatMessage[] = [{ role: "system", content: "You are Bram, the shopkeeper of the north gate market." }, { role: "user", content: "hello there, what do you sell?" }];
const TAIL = { delimiter: BEHAVIOUR_DELIMITER, jsonSchema: schema, maxTokens: tailLengthBound(schema) };

suite("a remote turn's words, as the local engine's", () => {
  test("the server evaluates the local engine's prompt tokens and samples with its truncation (top-k 40, top-p 0.95, no min-p)", async () => {
    const pool = poolOnProxy();
    try {
      await pool.probeAll();
      seen.length = 0;
      const r = await pool.generateOnce({ conversationKey: "words:prompt", messages: MESSAGES, maxTokens: 4, temperature: 0.7, seed: 3, minTokens: 1, tail: TAIL });
      expect(r.finishReason).not.toBe("abort");
      const chat = seen.find((x) => x.path === "/v1/chat/completions")!.body;
      // the prompt: the server's rendering of what the pool sent, by the server's tokenizer, is the local engine's
      const { prompt } = (await (await post("/apply-template", { messages: chat.messages })).json()) as { prompt: string };
      const remote = ((await (await post("/tokenize", { content: prompt, add_special: true })).json()) as { tokens: number[] }).tokens;
      const local = chatWrapperFor(model).generateContextState({ chatHistory: toChatHistory(MESSAGES) }).contextText.tokenize(model.tokenizer);
      expect(remote).toEqual(local as number[]);
      // and what the server took for this request: as many prompt tokens (its usage), and the local sampler settings
      expect(r.usageReported).toBe(true);
      expect(r.promptTokens).toBe(local.length);
      const [slot] = (await (await fetch(`${server.url}/slots`)).json()) as { params: Record<string, number> }[];
      expect(slot.params.top_k).toBe(40);
      expect(slot.params.top_p).toBeCloseTo(0.95, 6);
      expect(slot.params.min_p).toBe(0);
    } finally {
      await pool.dispose();
    }
  });

  test("an empty reply nobody saw is sampled once more, with the next seed, its costs added", async () => {
    const pool = poolOnProxy();
    const eos = model.tokens.eos!;
    try {
      await pool.probeAll();
      // the first sample ends at once (the end of turn made certain), as a model that opens with a stop does; the
      // second may not end before its first token
      chats = 0;
      alterChat = (body, n) => (body.logit_bias = [[eos, n === 0 ? 100 : -100]]);
      seen.length = 0;
      let streamed = "";
      const r = await pool.generateOnce({ conversationKey: "words:empty", messages: MESSAGES, maxTokens: 4, temperature: 0.7, seed: 11, minTokens: 1, onToken: (t) => (streamed += t) });
      const bodies = seen.filter((x) => x.path === "/v1/chat/completions").map((x) => x.body);
      expect(bodies.map((x) => x.seed)).toEqual([11, 12]);
      expect(r.text).not.toBe("");
      expect(streamed.trim()).toBe(r.text);
      expect(r.completionTokens).toBeGreaterThan(1);
      // greedy, a resample would only repeat itself: the empty reply comes back as it is
      chats = 0;
      seen.length = 0;
      const greedy = await pool.generateOnce({ conversationKey: "words:greedy", messages: MESSAGES, maxTokens: 4, temperature: 0, minTokens: 1 });
      expect(greedy.text).toBe("");
      expect(seen.filter((x) => x.path === "/v1/chat/completions")).toHaveLength(1);
    } finally {
      alterChat = null;
      await pool.dispose();
    }
  });
});

suite("the action gate's choices, spelled by the server", () => {
  test("as the local engine spells them: the same token ids, without the tokenizer's leading space", async () => {
    const calls = serverCalls(post as never, -1);
    const raw = await Promise.all(CHOICES.map((c) => calls.tokenize(c)));
    // the server's tokenizer alone puts a space before each (so this test could fail): its first piece reads " "
    for (const r of raw) expect(new TextDecoder().decode(r[0].piece!)).toBe(" ");
    const spelled = await serverSpellings({}, CHOICES, calls);
    expect(spelled).toEqual(CHOICES.map((c) => forced.spell(c) as number[]));
    for (let i = 0; i < CHOICES.length; i++) expect(model.detokenize(spelled[i] as Token[], false, model.tokenize("x"))).toBe(CHOICES[i]);
  });

  test("kept per backend and choice set: the same set is not asked for again", async () => {
    const asked: string[] = [];
    const calls = serverCalls(async (path, body) => {
      asked.push((body as { content: string }).content);
      return post(path, body);
    }, -1);
    const owner = {};
    const first = await serverSpellings(owner, CHOICES, calls);
    const n = asked.length;
    expect(n).toBeGreaterThan(0);
    expect(await serverSpellings(owner, CHOICES, calls)).toEqual(first);
    expect(asked.length).toBe(n);
    // another backend asks its own server
    await serverSpellings({}, CHOICES, calls);
    expect(asked.length).toBe(2 * n);
  });

  test("a gated remote tail probes the server with exactly those spellings", async () => {
    const pool = poolOnProxy();
    try {
      await pool.probeAll();
      seen.length = 0;
      const r = await pool.generate({
        conversationKey: "spell",
        messages: MESSAGES,
        maxTokens: 6,
        temperature: 0,
        minTokens: 1,
        tail: { ...TAIL, gate },
      });
      expect(r.tail!.gate).toBeDefined();
      const probe = seen.find((s) => s.path === "/completion" && "n_probs" in s.body)!;
      const prompts = (Array.isArray((probe.body.prompt as unknown[])[0]) ? probe.body.prompt : [probe.body.prompt]) as unknown[][];
      const local = CHOICES.map((c) => forced.spell(c));
      // each point's path (the token ids after the prompt's text) is where the local spellings part
      expect(prompts.length).toBeGreaterThan(1);
      for (const p of prompts) {
        const path = p.slice(1) as number[];
        expect(local.some((l) => path.every((t, i) => l[i] === t))).toBe(true);
      }
    } finally {
      await pool.dispose();
    }
  });
});
