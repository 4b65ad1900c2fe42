import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// Canaries: one per node-llama-cpp internal (and public state API) the engine relies on. A version
// bump that removes or changes one fails here first, with what it breaks and what the engine does
// without it (src/llm/internals.ts).
let engine: LlmEngine;
const version = JSON.parse(readFileSync(require.resolve("node-llama-cpp/package.json"), "utf8")).version as string;

beforeAll(async () => {
  engine = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 1, parallel: 2, contextSize: 256 });
});
afterAll(async () => {
  await engine?.dispose();
});

const EXPECTED = [
  "LlamaContext._decodeTokens",
  "LlamaContextSequence._sequenceId",
  "TokenBias._biases",
  "AddonSampler grammar-state statics",
  "LlamaContextSequence.saveStateToFile",
  "LlamaContextSequence.loadStateFromFile",
  "LlamaContextSequence.evaluateWithoutGeneratingNewTokens",
];

describe("node-llama-cpp internals", () => {
  test("the probe covers exactly the listed internals", () => {
    expect(engine.internals().map((p) => p.name)).toEqual(EXPECTED);
  });

  for (const name of EXPECTED) {
    test(`canary: ${name}`, () => {
      const probe = engine.internals().find((p) => p.name === name)!;
      if (!probe.available)
        throw new Error(
          `node-llama-cpp ${version} no longer has ${name} (${probe.kind}), used for ${probe.usedFor}. ` +
            `Without it: ${probe.fallback}. Update src/llm/internals.ts for the new version or pin the old one.`,
        );
      expect(probe.available).toBe(true);
    });
  }

  test("lock-step batching is live: two concurrent generations share decode calls", async () => {
    const before = engine.stats().decodeCalls;
    const gen = (key: string) =>
      engine.generate({ conversationKey: key, messages: [{ role: "user", content: "hello there" }], maxTokens: 12, minTokens: 12, temperature: 0 });
    const [a, b] = await Promise.all([gen("c1"), gen("c2")]);
    const tokens = a.completionTokens + b.completionTokens;
    // one decode per token each would be `tokens` calls (plus prompts); shared calls are fewer
    expect(engine.stats().decodeCalls - before).toBeLessThan(tokens);
  });

  test("end-of-generation suppression works through the bias map (minTokens honoured)", async () => {
    const r = await engine.generate({ conversationKey: "eog", messages: [{ role: "user", content: "bye" }], maxTokens: 10, minTokens: 10 });
    expect(r.completionTokens).toBe(10);
  });
});
