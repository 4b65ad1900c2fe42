// A server refusing a prompt as longer than its context, in the forms servers use (llama-server's HTTP 400
// and its in-stream error, vLLM's and OpenAI's wording): recognised, never retried on another backend, and
// the context the server states is taken as that backend's. A fake server here, for the forms a real
// llama-server does not produce; the real one is in remoteBudget.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { RemotePool } from "../../src/generation/remote/RemotePool.ts";
import { ContextOverflowError, contextOverflow } from "../../src/generation/remote/attemptErrors.ts";
import type { BackendConfig } from "../../src/generation/types.ts";

const LLAMA_400 = JSON.stringify({
  error: { code: 400, message: "request (1437 tokens) exceeds the available context size (512 tokens), try increasing it", type: "exceed_context_size_error", n_prompt_tokens: 1437, n_ctx: 512 },
});
const VLLM_400 = JSON.stringify({
  object: "error",
  message: "This model's maximum context length is 2048 tokens. However, you requested 2600 tokens (2400 in the messages, 200 in the completion).",
  type: "BadRequestError",
  code: 400,
});

describe("contextOverflow: which refusals are a context overflow", () => {
  const cases: [string, string, { contextSize: number | null } | null][] = [
    ["llama-server JSON error", LLAMA_400, { contextSize: 512 }],
    ["llama-server text only", "request (900 tokens) exceeds the available context size (256 tokens), try increasing it", { contextSize: 256 }],
    ["llama-server, input larger than the context", "input (700 tokens) is larger than the max context size (512 tokens). skipping", { contextSize: 512 }],
    ["vLLM", VLLM_400, { contextSize: 2048 }],
    ["OpenAI", JSON.stringify({ error: { message: "Too long.", type: "invalid_request_error", code: "context_length_exceeded" } }), { contextSize: null }],
    ["a refused schema", JSON.stringify({ error: { code: 400, message: "Failed to initialize samplers", type: "invalid_request_error" } }), null],
    ["a bad request", "missing field messages", null],
  ];
  for (const [name, body, want] of cases) test(name, () => expect(contextOverflow(body)).toEqual(want));
});

type Mode = "llama-400" | "vllm-400" | "in-stream";

function fake(mode: Mode) {
  let requests = 0;
  const enc = new TextEncoder();
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/health" || path === "/v1/models") return Response.json({ status: "ok", data: [{ id: "m" }] });
      if (path === "/props") return Response.json({ default_generation_settings: { n_ctx: 4096 }, total_slots: 2 });
      await req.json();
      requests++;
      if (mode === "llama-400") return new Response(LLAMA_400, { status: 400, headers: { "content-type": "application/json" } });
      if (mode === "vllm-400") return new Response(VLLM_400, { status: 400, headers: { "content-type": "application/json" } });
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode(`data: ${LLAMA_400}\n\n`));
          c.close();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests: () => requests, stop: () => server.stop(true) };
}

const fakes: ReturnType<typeof fake>[] = [];
afterAll(() => fakes.forEach((f) => f.stop()));

describe("an overflow is tried once, on one backend", () => {
  const cases: [Mode, BackendConfig["kind"], number][] = [
    ["llama-400", "llama-server", 512],
    ["in-stream", "llama-server", 512],
    ["vllm-400", "vllm", 2048],
  ];
  for (const [mode, kind, learnt] of cases) {
    test(`${mode}: ContextOverflowError, no retry on the other backend, the backend's context becomes ${learnt}, its circuit stays closed`, async () => {
      const a = fake(mode);
      const b = fake(mode);
      fakes.push(a, b);
      const cfg = (url: string): BackendConfig => ({ url, model: "m", apiKey: null, maxConcurrent: 2, weight: 1, timeoutMs: 5_000, kind });
      const pool = new RemotePool({ backends: [cfg(a.url), cfg(b.url)], defaultTimeoutMs: 5_000, fallbackContextSize: 2048 });
      await pool.probeAll();
      const err = await pool.generate({ conversationKey: "k", messages: [{ role: "user", content: "hello" }], maxTokens: 8 }).then(() => null, (e) => e);
      expect(err).toBeInstanceOf(ContextOverflowError);
      expect(a.requests() + b.requests()).toBe(1);
      const refused = pool.backends.find((x) => x.requests === 1)!;
      expect(refused.contextSize).toBe(learnt);
      expect(pool.contextSize).toBe(learnt);
      expect(refused.breaker.state).toBe("closed");
      await pool.dispose();
    });
  }
});
