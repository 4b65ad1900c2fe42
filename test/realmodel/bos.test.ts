import { afterAll, describe, expect, test } from "bun:test";
import { LlamaChat, type LlamaModel } from "node-llama-cpp";
import { sharedLlama } from "../../src/llm/llamaRuntime.ts";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { chatWrapperFor, replyOpening } from "../../src/llm/transcriptChatWrapper.ts";
import { realFixtures } from "./realFixtures.ts";

// What llama.cpp evaluates opens with exactly one BOS where the model's tokenizer adds one, and none of the engine's
// own where it adds none. SmolLM2-135M-Instruct: its BOS token is `<|im_start|>` and its GGUF says add_bos_token
// false; node-llama-cpp's ChatML wrapper added a BOS anyway, so the prompt began `<|im_start|><|im_start|>system`.
// Gemma 3 270M (a base model, the transcript layout) adds one. One greedy token each: the prompt's tokens do not
// depend on the CPU.
const fx = realFixtures();
const models: LlamaModel[] = [];
afterAll(async () => {
  for (const m of models) await m.dispose();
});

async function evaluatedStart(modelPath: string, speaker: string) {
  const model = await (await sharedLlama(1)).loadModel({ modelPath });
  models.push(model);
  const context = await model.createContext({ contextSize: 512, threads: { ideal: 1, min: 1 } });
  try {
    const sequence = context.getSequence();
    const wrapper = chatWrapperFor(model);
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: wrapper, autoDisposeSequence: false });
    const history = toChatHistory([{ role: "system", content: "You are Bram, a lighthouse keeper." }, { role: "user", content: "Hello, keeper." }], replyOpening(wrapper, speaker));
    await chat.generateResponse(history, { maxTokens: 1, temperature: 0 });
    return { tokens: [...sequence.contextTokens].slice(0, 4), bos: model.tokens.bos!, text: model.detokenize([...sequence.contextTokens].slice(0, 4), true) };
  } finally {
    await context.dispose();
  }
}

describe.skipIf(!fx)("BOS at the start of a real model's prompt", () => {
  test("SmolLM2: one `<|im_start|>`, then the system turn", async () => {
    const { tokens, bos, text } = await evaluatedStart(fx!.smol, "Bram");
    expect(tokens[0]).toBe(bos);
    expect(tokens[1]).not.toBe(bos);
    expect(text.startsWith("<|im_start|>system\n")).toBe(true);
  }, 60_000);

  test("Gemma 3 270M: one BOS, then the system text", async () => {
    const { tokens, bos, text } = await evaluatedStart(fx!.gemma, "Bram");
    expect(tokens[0]).toBe(bos);
    expect(tokens[1]).not.toBe(bos);
    expect(text).toStartWith("<bos>You are Bram");
  }, 60_000);
});
