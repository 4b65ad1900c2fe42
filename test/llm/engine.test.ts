import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { basename } from "node:path";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// Model tests share 2 cores with whatever else runs: generous per-test limit.
setDefaultTimeout(30_000);

// Real llama.cpp on the random-weight tiny model the suite writes itself. Its replies are
// gibberish; `minTokens` keeps it from ending a reply at once when a test needs tokens.
let engine: LlmEngine;

const system = (who: string): ChatMessage => ({
  role: "system",
  content: `You are ${who}, the old guard of the north gate of the king's castle. `.repeat(6),
});

beforeAll(async () => {
  engine = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 1, parallel: 4, contextSize: 512 });
});

afterAll(async () => {
  await engine?.dispose();
});

describe("LlmEngine", () => {
  test("loads the model and names it", () => {
    expect(engine.modelName).toBe(basename(ensureTinyModel(), ".gguf"));
    expect(engine.modelPath).toBe(ensureTinyModel());
    expect(engine.stats().sequences).toBe(4);
  });

  test("counts tokens of text and of the rendered chat", () => {
    expect(engine.countTokens("hello the traveler")).toBeGreaterThan(0);
    const messages: ChatMessage[] = [system("Bram"), { role: "user", content: "hello" }];
    const chat = engine.countChatTokens(messages);
    // The template adds role markers around both messages and opens the assistant turn.
    expect(chat).toBeGreaterThan(engine.countTokens(messages[0].content) + engine.countTokens("hello"));
  });

  test("generates text with token counts", async () => {
    const messages: ChatMessage[] = [system("Bram"), { role: "user", content: "hello traveler" }];
    const r = await engine.generate({ conversationKey: "p:bram:1", messages, maxTokens: 16, minTokens: 4 });
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.text).toBe(r.text.trim());
    expect(r.text).not.toContain("<|im_");
    expect(r.promptTokens).toBe(engine.countChatTokens(messages));
    expect(r.evaluatedPromptTokens).toBe(r.promptTokens); // a fresh sequence: nothing cached
    expect(r.completionTokens).toBeGreaterThanOrEqual(4);
    expect(r.completionTokens).toBeLessThanOrEqual(16);
    expect(["stop", "length"]).toContain(r.finishReason);
    expect(r.timeToFirstTokenMs).toBeGreaterThan(0);
  });

  test("respects maxTokens", async () => {
    const r = await engine.generate({
      conversationKey: "p:bram:2",
      messages: [system("Bram"), { role: "user", content: "tell me a long story" }],
      maxTokens: 12,
      minTokens: 100,
    });
    expect(r.completionTokens).toBe(12);
    expect(r.finishReason).toBe("length");
  });

  test("streams the reply through onToken", async () => {
    const pieces: string[] = [];
    const r = await engine.generate({
      conversationKey: "p:bram:3",
      messages: [system("Bram"), { role: "user", content: "hi" }],
      maxTokens: 20,
      minTokens: 20,
      onToken: (t) => pieces.push(t),
    });
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("").trim()).toBe(r.text);
  });

  test("a returning conversation evaluates only the new suffix; another key does not reuse it", async () => {
    const key = "p:ida:1";
    const turn1: ChatMessage[] = [system("Ida"), { role: "user", content: "hello" }];
    const first = await engine.generate({ conversationKey: key, messages: turn1, maxTokens: 8, minTokens: 8 });
    expect(first.evaluatedPromptTokens).toBe(first.promptTokens);

    const turn2: ChatMessage[] = [...turn1, { role: "assistant", content: first.text }, { role: "user", content: "where is the king?" }];
    const second = await engine.generate({ conversationKey: key, messages: turn2, maxTokens: 8, minTokens: 8 });
    expect(second.promptTokens).toBeGreaterThan(first.promptTokens);
    expect(second.evaluatedPromptTokens).toBeLessThan(second.promptTokens / 3);

    const other = await engine.generate({
      conversationKey: "p:ulf:1",
      messages: [system("Ulf"), { role: "user", content: "where is the king?" }],
      maxTokens: 8,
      minTokens: 8,
    });
    expect(other.evaluatedPromptTokens).toBeGreaterThan(other.promptTokens * 0.9);
  });

  test("different minds share too little to copy", async () => {
    const before = engine.stats().prefixCopies;
    const r = await engine.generate({ conversationKey: "p:wulf:1", messages: [system("Wulfric"), { role: "user", content: "hello" }], maxTokens: 4, minTokens: 4 });
    expect(r.evaluatedPromptTokens).toBeGreaterThan(r.promptTokens * 0.9);
    expect(engine.stats().prefixCopies).toBe(before);
  });

  test("jsonSchema output is valid JSON matching the schema", async () => {
    const schema = {
      type: "object",
      // node-llama-cpp's "integer" admits exponents and has no minimum/maximum: bounded numbers are enums.
      properties: { mood: { enum: ["calm", "angry"] }, importance: { enum: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } },
      required: ["mood", "importance"],
    };
    const r = await engine.generate({
      conversationKey: "p:bram:json",
      messages: [system("Bram"), { role: "user", content: "How do you feel?" }],
      maxTokens: 60,
      jsonSchema: schema,
    });
    expect(r.finishReason).toBe("stop");
    const parsed = JSON.parse(r.text);
    expect(["calm", "angry"]).toContain(parsed.mood);
    expect(parsed.importance).toBeGreaterThanOrEqual(1);
    expect(parsed.importance).toBeLessThanOrEqual(10);
  });

  test("abort mid-generation returns what was generated and frees the sequence", async () => {
    const ac = new AbortController();
    let tokens = 0;
    const r = await engine.generate({
      conversationKey: "p:bram:abort",
      messages: [system("Bram"), { role: "user", content: "talk forever" }],
      maxTokens: 400,
      minTokens: 400,
      signal: ac.signal,
      onToken: () => {
        if (++tokens === 5) ac.abort();
      },
    });
    expect(r.finishReason).toBe("abort");
    expect(r.completionTokens).toBeGreaterThanOrEqual(5);
    // fewer tokens than it was made to generate: it stopped (no time bound: a loaded box is slow either way)
    expect(r.completionTokens).toBeLessThan(400);
    expect(engine.stats().activeSequences).toBe(0);
  });

  test("an already-aborted signal returns at once", async () => {
    const r = await engine.generate({
      conversationKey: "p:bram:pre",
      messages: [system("Bram"), { role: "user", content: "hi" }],
      maxTokens: 10,
      signal: AbortSignal.abort(),
    });
    expect(r.finishReason).toBe("abort");
    expect(r.completionTokens).toBe(0);
  });

  test("timeout stops generation with finishReason timeout", async () => {
    const r = await engine.generate({
      conversationKey: "p:bram:slow",
      messages: [system("Bram"), { role: "user", content: "talk forever" }],
      maxTokens: 480,
      minTokens: 480,
      timeoutMs: 80,
    });
    expect(r.finishReason).toBe("timeout");
    expect(r.completionTokens).toBeLessThan(480);
    expect(engine.stats().activeSequences).toBe(0);
  });
});

describe("estimateChatTokens", () => {
  test("is an upper bound of the rendered prompt's tokens", async () => {
    const e = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 1, parallel: 1 });
    try {
      const conversations = [
        [{ role: "system" as const, content: "You are Garrick, an innkeeper." }, { role: "user" as const, content: "Hello!" }],
        [
          { role: "system" as const, content: "You are Mara. ".repeat(40) },
          { role: "user" as const, content: "Where is the tunnel?" },
          { role: "assistant" as const, content: "Which tunnel, friend?" },
          { role: "user" as const, content: "The one under the cellar, of course — ünïcödé and emoji 🐉 too." },
        ],
      ];
      for (const m of conversations) {
        expect(e.estimateChatTokens(m)).toBeGreaterThanOrEqual(e.countChatTokens(m));
        expect(e.estimateChatTokens(m)).toBeLessThan(e.countChatTokens(m) + 16 * (m.length + 1) + 1);
      }
    } finally {
      await e.dispose();
    }
  });
});
