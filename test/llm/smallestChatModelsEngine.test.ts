import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { LlamaChat, type LlamaModel } from "node-llama-cpp";
import { sharedLlama } from "../../src/llm/llamaRuntime.ts";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { chatWrapperFor } from "../../src/llm/transcriptChatWrapper.ts";
import { renderSharedLore } from "../../src/npc/sharedLore/sharedLore.ts";
import { ensureTinyModel, tinyGgufParameterCount } from "../support/tinyGguf.ts";
import { realFixtures, qwenFixture } from "../realmodel/realFixtures.ts";

setDefaultTimeout(120_000);

// What llama.cpp evaluates for a chat model this small holds no kept secret (src/llm/smallestChatModels.ts): the
// tiny GGUF the suite makes has a ChatML template and a few thousand parameters.
const models: LlamaModel[] = [];
afterAll(async () => {
  for (const m of models) await m.dispose();
});

const note = (name: string, text: string, secret = false) => ({ chunkId: name, documentId: name, documentName: name, chunkIndex: 0, tags: ["t"], text, ...(secret ? { secret } : {}) });
const system = `You are Ilse.\n\n${renderSharedLore([note("Tables", "hid behind the wheel", true), note("Tide", "due in 1388")])}`;

describe("the smallest chat models read no kept secret", () => {
  test("the tokens llama.cpp evaluated: the other notes, not the secret's", async () => {
    expect(tinyGgufParameterCount()).toBeLessThan(200_000_000);
    const llama = await sharedLlama(1);
    const model = await llama.loadModel({ modelPath: ensureTinyModel() });
    models.push(model);
    const context = await model.createContext({ contextSize: 512, threads: { ideal: 1, min: 1 } });
    try {
      const sequence = context.getSequence();
      const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: chatWrapperFor(model), autoDisposeSequence: false });
      await chat.generateResponse(toChatHistory([{ role: "system", content: system }, { role: "user", content: "When?" }]), { maxTokens: 1, seed: 1 });
      const read = model.detokenize([...sequence.contextTokens], true);
      expect(read).toContain("About Tide: due in 1388");
      expect(read).toContain("When?");
      expect(read).not.toContain("hid behind the wheel");
      expect(read).not.toContain("your secret");
    } finally {
      await context.dispose();
    }
  });

  const fx = realFixtures();
  const qwen = qwenFixture();
  test.skipIf(!fx || !qwen)("the real models: SmolLM2-135M leaves the secret out, Qwen2.5-0.5B and Gemma 3 270M read it", async () => {
    const llama = await sharedLlama(1);
    const read = async (modelPath: string) => {
      const model = await llama.loadModel({ modelPath, vocabOnly: true });
      models.push(model);
      return chatWrapperFor(model).generateContextState({ chatHistory: toChatHistory([{ role: "system", content: system }, { role: "user", content: "When?" }]) }).contextText.toString();
    };
    expect(await read(fx!.smol)).not.toContain("hid behind the wheel");
    expect(await read(qwen!)).toContain("hid behind the wheel");
    expect(await read(fx!.gemma)).toContain("hid behind the wheel");
  });
});
