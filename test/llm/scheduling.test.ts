import { setDefaultTimeout, afterEach, describe, expect, test } from "bun:test";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import type { ChatMessage, GenerateRequest } from "../../src/llm/types.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// Model tests share 2 cores with whatever else runs: generous per-test limit.
setDefaultTimeout(30_000);

// Real llama.cpp on the tiny random model: sequence pool, queue, batching and shutdown.
const engines: LlmEngine[] = [];
async function load(parallel: number): Promise<LlmEngine> {
  const engine = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 1, parallel, contextSize: 512 });
  engines.push(engine);
  return engine;
}

afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.dispose()));
});

const messages = (who: string, text = "hello"): ChatMessage[] => [
  { role: "system", content: `${who} keeps the tavern by the river and knows every road. `.repeat(5) },
  { role: "user", content: text },
];
const ask = (key: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  conversationKey: key,
  messages: messages(key),
  maxTokens: 8,
  minTokens: 8,
  ...extra,
});

describe("sequence pool", () => {
  test("LRU eviction with parallel=2 and three conversations", async () => {
    const engine = await load(2);
    await engine.generate(ask("Anna"));
    await engine.generate(ask("Bert"));
    await engine.generate(ask("Cleo")); // both sequences taken: Anna's (least recently used) is evicted
    expect(engine.cachedConversations().sort()).toEqual(["Bert", "Cleo"]);

    const bert = await engine.generate(ask("Bert")); // still cached: only the last token is re-evaluated
    expect(bert.evaluatedPromptTokens).toBeLessThanOrEqual(2);

    const anna = await engine.generate(ask("Anna")); // evicted: evaluated from scratch, Cleo now evicted
    expect(anna.evaluatedPromptTokens).toBeGreaterThan(anna.promptTokens * 0.9);
    expect(engine.cachedConversations().sort()).toEqual(["Anna", "Bert"]);
  });

  test("FIFO queue with parallel=1: concurrent requests all complete, in arrival order", async () => {
    const engine = await load(1);
    const order: string[] = [];
    const runs = ["first", "second", "third"].map((key) =>
      engine.generate(ask(key, { maxTokens: 12, minTokens: 12 })).then((r) => {
        order.push(key);
        return r;
      }),
    );
    await Bun.sleep(0);
    expect(engine.stats().queueDepth).toBe(2);
    const results = await Promise.all(runs);
    expect(order).toEqual(["first", "second", "third"]);
    for (const r of results) expect(r.completionTokens).toBe(12);
    expect(engine.stats()).toMatchObject({ queueDepth: 0, activeSequences: 0 });
  });

  test("a request aborted while queued leaves the queue", async () => {
    const engine = await load(1);
    const ac = new AbortController();
    const busy = engine.generate(ask("busy", { maxTokens: 60, minTokens: 60 }));
    const queued = engine.generate(ask("queued", { signal: ac.signal }));
    await Bun.sleep(0);
    expect(engine.stats().queueDepth).toBe(1);
    ac.abort();
    const r = await queued;
    expect(r).toMatchObject({ finishReason: "abort", completionTokens: 0, evaluatedPromptTokens: 0 });
    expect(engine.stats().queueDepth).toBe(0);
    expect((await busy).completionTokens).toBe(60);
  });
});

describe("batched decoding", () => {
  test("4 concurrent generations share decode calls", async () => {
    const engine = await load(4);
    await engine.generate(ask("warmup", { maxTokens: 4, minTokens: 4 }));
    const before = engine.stats();
    const results = await Promise.all(["w", "x", "y", "z"].map((k) => engine.generate(ask(k, { maxTokens: 32, minTokens: 32 }))));
    const after = engine.stats();
    const generated = results.reduce((n, r) => n + r.completionTokens, 0);
    expect(generated).toBe(128);
    expect(after.tokensGenerated - before.tokensGenerated).toBe(128);
    const calls = after.decodeCalls - before.decodeCalls;
    // Unbatched this is ≥ 4 prompt decodes + 4 × 31 steps = 128; in lock-step about 32-40.
    expect(calls).toBeLessThan(64);
  });
});

describe("dispose", () => {
  test("aborts in-flight generations, then refuses new ones", async () => {
    const engine = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 1, parallel: 1, contextSize: 512 });
    let tokens = 0;
    let disposing: Promise<void> | null = null;
    const running = engine.generate(
      ask("late", {
        maxTokens: 400,
        minTokens: 400,
        onToken: () => {
          if (++tokens === 3) disposing = engine.dispose();
        },
      }),
    );
    const queued = engine.generate(ask("later"));
    const [r, q] = await Promise.all([running, queued]);
    await disposing;
    expect(r.finishReason).toBe("abort");
    expect(r.completionTokens).toBeGreaterThanOrEqual(3);
    expect(q).toMatchObject({ finishReason: "abort", completionTokens: 0 });
    await expect(engine.generate(ask("after"))).rejects.toThrow("disposed");
  });
});
