import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { ensureTinyModel, tinyGgufParameterCount, writeTinyGguf } from "../support/tinyGguf.ts";

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

  test("bigger quantized shapes write quickly", () => {
    const path = join(dir, "q.gguf");
    const opts = { nEmbd: 256, nLayers: 4, nHeads: 8, nHeadsKv: 4, nFf: 512, nCtx: 2048, vocabSize: 2000, weightType: "q4_0" as const };
    const started = performance.now();
    writeTinyGguf(path, opts);
    expect(performance.now() - started).toBeLessThan(2000);
    const params = tinyGgufParameterCount(opts);
    // Q4_0 is 18 bytes per 32 weights.
    expect(statSync(path).size).toBeGreaterThan((params * 18) / 32);
  });
});
