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

  test("a batch lists its sequences in rising order (llama.cpp splits a batch where the ids stop rising by one)", () => {
    const b = new DecodeBatcher({ promptChunkTokens: 128, maxWaitMs: 25 });
    const context = { _decodeTokens: async (request: { sequenceId: number }) => request.sequenceId };
    expect(b.attach(context as any)).toBe(true);
    // Decodes queued in the order their sequences finished sampling, plus a newcomer's prompt.
    const requests = [2, 0, 3, 1].map((sequenceId) => ({ sequenceId, tokens: [7] }));
    const prompt = { sequenceId: 4, tokens: new Array(300).fill(7) };
    for (const r of [prompt, ...requests]) void (context._decodeTokens as (r: unknown) => Promise<number>)(r);
    const items = [prompt, ...requests].map((r) => ({ tokens: r.tokens, logits: [], evaluationPriority: 5 }) as any);
    const batch = b.prioritize({ items, size: 512 });
    const sequenceOf = (tokens: unknown) => [prompt, ...requests].find((r) => r.tokens === tokens)!.sequenceId;
    expect(batch.map((x) => [sequenceOf(x.item.tokens), x.processAmount])).toEqual([[0, 1], [1, 1], [2, 1], [3, 1], [4, 128]]);
  });
});
