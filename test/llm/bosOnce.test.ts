import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { LlamaChat, type LlamaModel } from "node-llama-cpp";
import { sharedLlama } from "../../src/llm/llamaRuntime.ts";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { chatWrapperFor, replyOpening } from "../../src/llm/transcriptChatWrapper.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

setDefaultTimeout(60_000);

// What llama.cpp evaluates must open with BOS exactly as the model's tokenizer says: once when it adds one, never when
// it adds none. SmolLM2's GGUF is the case: BOS is `<|im_start|>` and add_bos_token is false, and node-llama-cpp's
// ChatML wrapper opened every prompt with a BOS of its own, so the prompt began `<|im_start|><|im_start|>system`.

const models: LlamaModel[] = [];
afterAll(async () => {
  for (const m of models) await m.dispose();
});

/** The tokens in the sequence's KV cache after a one-token turn: what llama.cpp actually evaluated. */
async function evaluated(modelPath: string, speaker?: string) {
  const llama = await sharedLlama(1);
  const model = await llama.loadModel({ modelPath });
  models.push(model);
  const context = await model.createContext({ contextSize: 256, threads: { ideal: 1, min: 1 } });
  try {
    const sequence = context.getSequence();
    const wrapper = chatWrapperFor(model);
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: wrapper, autoDisposeSequence: false });
    const history = toChatHistory([{ role: "system", content: "You are Bob." }, { role: "user", content: "hello" }], replyOpening(wrapper, speaker));
    await chat.generateResponse(history, { maxTokens: 1, seed: 1 });
    return { tokens: [...sequence.contextTokens], bos: model.tokens.bos!, imStart: model.tokenize("<|im_start|>", true)[0] };
  } finally {
    await context.dispose();
  }
}

describe("BOS at the start of the evaluated prompt", () => {
  test("a model whose BOS is its turn marker and that adds no BOS (SmolLM2's shape): the marker once", async () => {
    const { tokens, bos, imStart } = await evaluated(ensureTinyModel(undefined, { bosTokenId: 3, addBosToken: false }));
    expect(bos).toBe(imStart);
    expect(tokens[0]).toBe(imStart);
    expect(tokens[1]).not.toBe(imStart);
    expect(tokens.filter((t) => t === bos).length).toBe(3); // the system turn, the user turn, the reply's opening
  });

  test("a model that adds no BOS and whose BOS is another token: no BOS at all", async () => {
    const { tokens, bos, imStart } = await evaluated(ensureTinyModel(undefined, { addBosToken: false }));
    expect(tokens[0]).toBe(imStart);
    expect(tokens).not.toContain(bos);
  });

  test("a model that adds BOS: exactly one, first", async () => {
    const { tokens, bos, imStart } = await evaluated(ensureTinyModel());
    expect(tokens[0]).toBe(bos);
    expect(tokens[1]).toBe(imStart);
    expect(tokens.filter((t) => t === bos).length).toBe(1);
  });

  test("a model without a chat template (the transcript): exactly one BOS, first", async () => {
    const { tokens, bos } = await evaluated(ensureTinyModel(undefined, { chatTemplate: "" }), "Bob");
    expect(tokens[0]).toBe(bos);
    expect(tokens.filter((t) => t === bos).length).toBe(1);
  });
});
