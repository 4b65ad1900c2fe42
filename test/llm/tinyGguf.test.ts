import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GgmlType, LlamaCompletion, readGgufFileInfo } from "node-llama-cpp";
import { sharedLlama } from "../../src/llm/llamaRuntime.ts";
import { ensureTinyModel, tinyGgufParameterCount, writeTinyGguf, type TinyGgufWeightType } from "../support/tinyGguf.ts";

const dir = mkdtempSync(join(tmpdir(), "lorehold-gguf-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("tiny GGUF writer", () => {
  test("default model: llama metadata, SPM byte-fallback vocab, ChatML template", async () => {
    const info = await readGgufFileInfo(ensureTinyModel(), { readTensorInfo: true });
    expect(info.version).toBe(3);
    const meta = info.metadata as any;
    expect(meta.general.architecture).toBe("llama");
    expect(meta.llama).toMatchObject({ embedding_length: 64, block_count: 2, context_length: 512, feed_forward_length: 128 });
    expect(meta.llama.attention.head_count).toBe(4);
    expect(meta.llama.rope.dimension_count).toBe(16);
    const tokens: string[] = meta.tokenizer.ggml.tokens;
    expect(tokens.slice(0, 5)).toEqual(["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]);
    expect(tokens).toContain("<0xFF>");
    expect(tokens).toContain("▁the");
    expect(meta.tokenizer.chat_template).toContain("<|im_start|>");
    const names = info.tensorInfo!.map((t) => t.name);
    expect(names).toContain("token_embd.weight");
    expect(names).toContain("blk.1.ffn_down.weight");
    const embd = info.tensorInfo!.find((t) => t.name === "token_embd.weight")!;
    expect(embd.dimensions.map(Number)).toEqual([64, tokens.length]);
  });

  test("same seed, same bytes; ensureTinyModel caches", async () => {
    const a = join(dir, "a.gguf");
    const b = join(dir, "b.gguf");
    writeTinyGguf(a, { seed: 7 });
    writeTinyGguf(b, { seed: 7 });
    expect(Buffer.compare(await Bun.file(a).bytes(), await Bun.file(b).bytes())).toBe(0);
    expect(ensureTinyModel()).toBe(ensureTinyModel());
  });

  test("bigger quantized shapes write, at the size their weight type gives", () => {
    const path = join(dir, "q.gguf");
    const opts = { nEmbd: 256, nLayers: 4, nHeads: 8, nHeadsKv: 4, nFf: 512, nCtx: 2048, vocabSize: 2000, weightType: "q4_0" as const };
    writeTinyGguf(path, opts);
    const params = tinyGgufParameterCount(opts);
    // Q4_0 is 18 bytes per 32 weights.
    expect(statSync(path).size).toBeGreaterThan((params * 18) / 32);
  });

  // The Q4_K_M shape: 320-wide rows are not a multiple of 256, so llama.cpp's recipe falls back
  // to Q5_0 (Q8_0 where it wanted Q6_K); ffn_down reads 512-wide rows and keeps K-quants. Layers
  // 0, 3, 6 and 7 of 8 get more bits (use_more_bits).
  const KM = { nEmbd: 320, nLayers: 8, nHeads: 5, nHeadsKv: 1, nFf: 512, nCtx: 512, weightType: "q4_k_m" as const };
  test("q4_k_m follows llama.cpp's per-tensor recipe", async () => {
    const path = join(dir, "km.gguf");
    writeTinyGguf(path, KM);
    const info = await readGgufFileInfo(path, { readTensorInfo: true });
    const type = (name: string) => info.tensorInfo!.find((t) => t.name === name)!.ggmlType;
    expect((info.metadata as any).general.file_type).toBe(15);
    expect(type("output.weight")).toBe(GgmlType.Q8_0);
    expect(type("token_embd.weight")).toBe(GgmlType.Q5_0);
    expect(type("blk.1.attn_q.weight")).toBe(GgmlType.Q5_0);
    expect(type("blk.0.attn_v.weight")).toBe(GgmlType.Q8_0);
    expect(type("blk.1.attn_v.weight")).toBe(GgmlType.Q5_0);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => type(`blk.${i}.ffn_down.weight`))).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ([0, 3, 6, 7].includes(i) ? GgmlType.Q6_K : GgmlType.Q4_K)),
    );
    expect(type("blk.2.ffn_norm.weight")).toBe(GgmlType.F32);
  });

  test("K-quant types need rows that are a multiple of 256", () => {
    expect(() => writeTinyGguf(join(dir, "bad.gguf"), { nEmbd: 320, nHeads: 5, nHeadsKv: 1, nFf: 512, weightType: "q4_k" })).toThrow("multiples of 256");
  });

  const SHAPES: [TinyGgufWeightType, object][] = [
    ["f16", {}],
    ["q8_0", {}],
    ["q5_0", {}],
    ["q4_0", {}],
    ["q4_k", { nEmbd: 256, nFf: 512 }],
    ["q6_k", { nEmbd: 256, nFf: 512 }],
    ["q4_k_m", KM],
  ];
  test.each(SHAPES)("llama.cpp loads %s weights and generates from them", async (weightType, shape) => {
    const path = join(dir, `gen-${weightType}.gguf`);
    writeTinyGguf(path, { nEmbd: 64, nFf: 128, ...shape, weightType });
    const model = await (await sharedLlama(2, "error")).loadModel({ modelPath: path });
    try {
      const context = await model.createContext({ contextSize: 256, threads: { ideal: 2, min: 2 } });
      const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
      let tokens = 0;
      await completion.generateCompletion("the old guard of the north gate", {
        maxTokens: 8,
        temperature: 0,
        onToken: (t) => void (tokens += t.length),
      });
      expect(tokens).toBeGreaterThan(0);
      await context.dispose();
    } finally {
      await model.dispose();
    }
  });
});
