// Error paths a real llama-server cannot produce on demand (malformed chunks, hung connections, a stream
// cut mid-reply, a refused schema), against a small fake OpenAI-compatible server. The real-engine
// behaviour (routing, caching, failover, credits) is in remotePool.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { RemotePool, NoBackendError } from "../../src/generation/remote/RemotePool.ts";
import { AttemptError } from "../../src/generation/remote/RemoteBackend.ts";
import type { BackendConfig } from "../../src/generation/types.ts";

type Mode = "flaky" | "ok" | "malformed" | "hang" | "500" | "cut" | "slow" | "no-usage" | "refuse-schema" | "json-bad-then-good";

interface Fake {
  url: string;
  mode: Mode;
  requests: any[];
  cancelled: number;
  stop(): void;
}

const enc = new TextEncoder();
const chunk = (o: unknown) => enc.encode(`data: ${JSON.stringify(o)}\n\n`);
const delta = (content: string) => chunk({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const finish = (reason = "stop") => chunk({ choices: [{ index: 0, delta: {}, finish_reason: reason }] });
const usage = (p: number, c: number) => chunk({ choices: [], usage: { prompt_tokens: p, completion_tokens: c, prompt_tokens_details: { cached_tokens: 5 } } });

function fake(mode: Mode): Fake {
  const f: Fake = { url: "", mode, requests: [], cancelled: 0, stop: () => {} };
  let jsonCalls = 0;
  const server = Bun.serve({
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/health" || path === "/v1/models") return Response.json({ status: "ok", data: [{ id: "m" }] });
      const body = (await req.json()) as any;
      f.requests.push(body);
      const sse = (write: (c: ReadableStreamDefaultController<Uint8Array>) => Promise<void> | void) =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(c) {
              await write(c);
            },
            cancel() {
              f.cancelled++;
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        );
      if (f.mode === "flaky" && f.requests.length === 1) return new Response("restarting", { status: 503 });
      switch (f.mode) {
        case "flaky":
        case "ok":
        case "no-usage":
          return sse((c) => {
            c.enqueue(delta(" Hello"));
            c.enqueue(delta(" there<|im_end|>junk"));
            c.enqueue(finish());
            if (f.mode !== "no-usage") c.enqueue(usage(40, 2));
            c.enqueue(enc.encode("data: [DONE]\n\n"));
            c.close();
          });
        case "malformed":
          return sse((c) => {
            c.enqueue(enc.encode("data: {not json\n\n"));
            c.close();
          });
        case "hang":
          return new Promise<Response>(() => {});
        case "500":
          return new Response("boom", { status: 500 });
        case "cut":
          return sse((c) => {
            c.enqueue(delta("Half a "));
            c.enqueue(delta("reply"));
            c.close(); // no finish_reason: the server died
          });
        case "slow":
          return sse(async (c) => {
            for (let i = 0; i < 200; i++) {
              try {
                c.enqueue(delta(` w${i}`));
              } catch {
                return;
              }
              await Bun.sleep(20);
            }
            c.close();
          });
        case "refuse-schema":
          if (body.response_format) return new Response(JSON.stringify({ error: { message: "response_format not supported" } }), { status: 400 });
          return sse((c) => {
            c.enqueue(delta('{"n":'));
            c.enqueue(delta("2}"));
            c.enqueue(finish());
            c.enqueue(usage(30, 4));
            c.close();
          });
        case "json-bad-then-good":
          jsonCalls++;
          return sse((c) => {
            c.enqueue(delta(jsonCalls === 1 ? '{"n": 7}' : '{"n": 1}'));
            c.enqueue(finish());
            c.enqueue(usage(30 * jsonCalls, 4));
            c.close();
          });
      }
    },
  });
  f.url = `http://127.0.0.1:${server.port}`;
  f.stop = () => server.stop(true);
  return f;
}

const fakes: Fake[] = [];
afterAll(() => fakes.forEach((f) => f.stop()));

function pool(modes: Mode[], opts: Partial<BackendConfig> = {}) {
  const fs = modes.map((m) => fake(m));
  fakes.push(...fs);
  const p = new RemotePool({
    backends: fs.map((f) => ({ url: f.url, model: "m", apiKey: "sk-secret", maxConcurrent: 4, weight: 1, timeoutMs: 5_000, kind: "openai", ...opts })),
    defaultTimeoutMs: 10_000,
    fallbackContextSize: 2048,
  });
  // a key whose conversation lives on the first fake
  const key = Array.from({ length: 100 }, (_, i) => `p:m:${i}`).find((k) => p.orderFor(k)[0] === p.backends[0])!;
  return { p, fs, key };
}

const ask = (key: string, extra: Record<string, unknown> = {}) => ({
  conversationKey: key,
  messages: [
    { role: "system" as const, content: "You are Garrick." },
    { role: "user" as const, content: "Hi" },
  ],
  maxTokens: 16,
  ...extra,
});

describe("a remote reply", () => {
  test("cleaned like the local engine's, streamed clean, usage settles, the apiKey is sent as a bearer token", async () => {
    const { p, fs, key } = pool(["ok", "ok"]);
    const tokens: string[] = [];
    const r = await p.generate(ask(key, { onToken: (t: string) => tokens.push(t) }));
    expect(r.text).toBe("Hello there");
    expect(tokens.join("")).toBe("Hello there");
    expect([r.promptTokens, r.completionTokens, r.evaluatedPromptTokens, r.finishReason]).toEqual([40, 2, 35, "stop"]);
    expect(fs[0].requests[0]).toMatchObject({ model: "m", stream: true, stream_options: { include_usage: true }, max_tokens: 16 });
    expect(fs[1].requests).toHaveLength(0);
    expect(JSON.stringify(p.status())).not.toContain("sk-secret");
  });
  test("no usage reported: prompt tokens fall back to the estimate, completion to the pieces streamed", async () => {
    const { p, key } = pool(["no-usage"]);
    const r = await p.generate(ask(key));
    expect(r.completionTokens).toBe(2);
    expect(r.promptTokens).toBe(p.countChatTokens(ask(key).messages));
  });
});

describe("failures before anything was streamed are retried once on the next backend", () => {
  const rows: Array<[Mode, Record<string, unknown>]> = [
    ["malformed", {}],
    ["500", {}],
    ["hang", { timeoutMs: 300 }],
    ["cut", {}],
  ];
  for (const [mode, opts] of rows) {
    test(`${mode} → the other backend answers`, async () => {
      const { p, fs, key } = pool([mode, "ok"], opts as Partial<BackendConfig>);
      const r = await p.generate(ask(key));
      expect(r.text).toBe("Hello there");
      expect((r as any).backend).toBe("backend-1");
      expect(fs[0].requests).toHaveLength(1);
      expect(p.status()[0].errors).toBe(1);
      // the first backend's failure recorded and the second's answer: a hang that was never cut would not get here
      expect(p.status()[0].lastError).toBeTruthy();
    });
  }
  test("a single backend: the retry goes to the same one", async () => {
    const { p, fs, key } = pool(["flaky"]);
    const r = await p.generate(ask(key));
    expect(r.text).toBe("Hello there");
    expect(fs[0].requests).toHaveLength(2);
  });
  test("both fail → NoBackendError (interact turns it into 503 Generation failed)", async () => {
    const { p, key } = pool(["500", "malformed"]);
    await expect(p.generate(ask(key))).rejects.toBeInstanceOf(NoBackendError);
  });
  test("three failures open the circuit: the next requests skip that backend", async () => {
    const { p, fs, key } = pool(["500", "ok"]);
    for (let i = 0; i < 5; i++) await p.generate(ask(key));
    expect(fs[0].requests).toHaveLength(3);
    expect(p.status()[0].state).toBe("down");
    expect(fs[1].requests).toHaveLength(5);
  });
});

describe("after tokens reached the caller", () => {
  test("a stream cut mid-reply is not retried (the caller saw half a reply): it fails", async () => {
    const { p, fs, key } = pool(["cut", "ok"]);
    const tokens: string[] = [];
    const err = await p.generate(ask(key, { onToken: (t: string) => tokens.push(t) })).catch((e) => e);
    expect(err).toBeInstanceOf(AttemptError);
    expect(err.streamed).toBe(true);
    expect(tokens.join("")).toBe("Half a reply");
    expect(fs[1].requests).toHaveLength(0);
  });
  test("client disconnect cancels the upstream request", async () => {
    const { p, fs, key } = pool(["slow"]);
    const abort = new AbortController();
    let n = 0;
    const r = await p.generate(ask(key, { signal: abort.signal, onToken: () => ++n === 3 && abort.abort() }));
    expect(r.finishReason).toBe("abort");
    // the cancel reaches the server when the box gets to it: waited for, not given a fixed 100 ms
    while (fs[0].cancelled === 0) await Bun.sleep(5);
    expect(fs[0].cancelled).toBe(1);
    expect(p.status()[0].inFlight).toBe(0);
    expect(p.status()[0].errors).toBe(0);
  });
  test("a hung backend after tokens: finishReason timeout with the partial text", async () => {
    const { p, key } = pool(["slow"], { timeoutMs: 200 });
    const r = await p.generate(ask(key, { onToken: () => {} }));
    expect(r.finishReason).toBe("timeout");
    expect(r.text.startsWith("w0 w1")).toBe(true);
  });
});

describe("structured generation", () => {
  const schema = { type: "object", properties: { n: { enum: [1, 2] } }, required: ["n"] };
  test("an invalid reply gets one repair turn; usage adds up", async () => {
    const { p, fs, key } = pool(["json-bad-then-good"]);
    const r = (await p.generate(ask(key, { jsonSchema: schema }))) as any;
    expect(JSON.parse(r.text)).toEqual({ n: 1 });
    expect([r.repairs, r.valid, r.promptTokens]).toEqual([1, true, 90]);
    expect(fs[0].requests[0].response_format).toEqual({ type: "json_schema", json_schema: { name: "output", schema } });
    expect(fs[0].requests[1].messages.at(-1).content).toContain("/n must be equal to one of the allowed values");
  });
  test("a server that refuses response_format: retried without it, parsed and validated here", async () => {
    const { p, fs, key } = pool(["refuse-schema"]);
    const r = (await p.generate(ask(key, { jsonSchema: schema }))) as any;
    expect(JSON.parse(r.text)).toEqual({ n: 2 });
    expect(r.valid).toBe(true);
    expect(fs[0].requests.map((b) => !!b.response_format)).toEqual([true, false]);
    expect(p.backends[0].schemaUnsupported).toBe(true);
  });
});
