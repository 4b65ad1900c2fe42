import { describe, expect, test } from "bun:test";
import { DecodeBatcher } from "../../src/llm/DecodeBatcher.ts";

const item = (tokens: number) => ({ tokens: new Array(tokens).fill(7), logits: [], evaluationPriority: 5 }) as any;

describe("DecodeBatcher.prioritize", () => {
  test("a lone prompt fills the batch", () => {
    const b = new DecodeBatcher({ promptChunkTokens: 128, maxWaitMs: 25 });
    const prompt = item(1000);
    expect(b.prioritize({ items: [prompt], size: 512 })).toEqual([{ item: prompt, processAmount: 512 }]);
    expect(b.decodeCalls).toBe(1);
  });

  test("generation steps always get their token; a newcomer's prompt is chunked beside them", () => {
    const b = new DecodeBatcher({ promptChunkTokens: 128, maxWaitMs: 25 });
    const [s1, s2, prompt] = [item(1), item(1), item(1000)];
    const batch = b.prioritize({ items: [prompt, s1, s2], size: 512 });
    expect(batch.map((x) => x.processAmount)).toEqual([1, 1, 128]);
    expect(batch[2].item).toBe(prompt);
    expect(b.batchedTokens).toBe(130);
  });

  test("prompts share what is left in arrival order", () => {
    const b = new DecodeBatcher({ promptChunkTokens: 300, maxWaitMs: 25 });
    const [s1, p1, p2] = [item(1), item(400), item(400)];
    expect(b.prioritize({ items: [s1, p1, p2], size: 512 }).map((x) => x.processAmount)).toEqual([1, 300, 211]);
  });
});
