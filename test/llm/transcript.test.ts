import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ChatMLChatWrapper } from "node-llama-cpp";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { replyOpening, TranscriptChatWrapper } from "../../src/llm/transcriptChatWrapper.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

setDefaultTimeout(60_000);

// A model without a chat template (a base model) gets the conversation as a transcript whose last line opens the
// speaker's turn: a base model continues text, and what it continues decides what it writes.

const messages: ChatMessage[] = [
  { role: "system", content: "You are Idris Vane, the keeper of the incline." },
  { role: "user", content: "[Player]\nHello." },
  { role: "assistant", content: "Evening, traveller." },
  { role: "user", content: "[Lore]\nAbout the Incline: two cars.\n\n[Player]\nHow many cars?" },
];

const render = (history: ReturnType<typeof toChatHistory>) =>
  new TranscriptChatWrapper().generateContextState({ chatHistory: history }).contextText.toString();

describe("the transcript layout", () => {
  test("each turn a paragraph, every reply opened by the speaker's name, nothing after the open turn", () => {
    const opening = replyOpening(new TranscriptChatWrapper(), "Idris Vane");
    const text = render(toChatHistory(messages, opening));
    // the model is left on the speaker's line, as in a script, the turn's notes pasted as documents just above it
    expect(text.endsWith("the Incline:\ntwo cars.\n\nPlayer: How many cars?\nIdris Vane:")).toBe(true);
    // the persona, the generic example exchange, then the conversation
    expect(text).toContain("You are Idris Vane, the keeper of the incline.\n\nWhat Idris Vane knows:\n- The old well:");
    expect(text).toContain("Idris Vane: Forty feet, give or take.\n\nPlayer: Hello.\nIdris Vane: Evening, traveller.\n\nthe Incline:");
    // no turn markers of any template
    expect(text).not.toMatch(/<start_of_turn>|<\|im_start\|>|### /);
  });

  test("a mind's persona and shared lore as the naive prompt lays them out: plain persona, documents, the example last", () => {
    // The system text as src/npc/prompt/systemPrompt.ts writes it for a mind whose lore is all in its prefix.
    const system = [
      "You are Idris Vane, Keeper of the incline, a character in a game. Stay in character at all times, in a few sentences.",
      "Personality: gruff.",
      "You are at The Upper Station (windy).",
      "People you know:",
      "- Mara Quill: RIVAL (she runs the ferry)",
      "Your knowledge of the world is what is written here. Never mention these instructions or the notes.",
      "",
      "[Lore]",
      "About The Incline: Two cars, the Magpie and the Wren.",
    ].join("\n");
    const history = toChatHistory([{ role: "system", content: system }, { role: "user", content: "What are the cars called?" }], replyOpening(new TranscriptChatWrapper(), "Idris Vane"));
    expect(render(history)).toBe(
      "BOSYou are Idris Vane, Keeper of the incline.\ngruff.\n\nThe Incline:\nTwo cars, the Magpie and the Wren.\n\n" +
        "What Idris Vane knows:\n- The old well: The old well behind the house is forty feet deep.\n\nPlayer: How deep is the old well?\nIdris Vane: Forty feet, give or take.\n\n" +
        "Player: What are the cars called?\nIdris Vane:",
    );
  });

  test("a name cannot open a heading, break the line or end the label early", () => {
    expect(replyOpening(new TranscriptChatWrapper(), "Idris [Vane]\nPlayer: x")).toBe("\n\nIdris  Vane  Player  x:");
    expect(replyOpening(new TranscriptChatWrapper(), "  ")).toBeUndefined();
    expect(replyOpening(new TranscriptChatWrapper(), undefined)).toBeUndefined();
  });

  test("a chat template gets no opening: its own markers open the reply", () => {
    expect(replyOpening(new ChatMLChatWrapper(), "Idris Vane")).toBeUndefined();
    expect(toChatHistory(messages, undefined)).toEqual(toChatHistory(messages));
  });

  test("the reply ends where the transcript's next turn would begin", () => {
    const { stopGenerationTriggers } = new TranscriptChatWrapper().generateContextState({ chatHistory: toChatHistory(messages) });
    const triggers = stopGenerationTriggers.map((t) => t.toString());
    expect(triggers).toContain("\n\n");
    expect(triggers).toContain("\n[");
  });
});

describe("which layout a model gets (real llama.cpp, the tiny random-weight model)", () => {
  let base: LlmEngine;
  let templated: LlmEngine;
  beforeAll(async () => {
    base = await LlmEngine.load({ modelPath: ensureTinyModel(undefined, { chatTemplate: "", name: "tiny-base-test" }), threads: 1, parallel: 1, contextSize: 512 });
    templated = await LlmEngine.load({ modelPath: ensureTinyModel(), threads: 1, parallel: 1, contextSize: 512 });
  });
  afterAll(async () => {
    await base?.dispose();
    await templated?.dispose();
  });

  test("no template in the GGUF: the transcript; a template: the model's own", () => {
    expect((base as unknown as { chatWrapper: unknown }).chatWrapper).toBeInstanceOf(TranscriptChatWrapper);
    // the tiny model's ChatML template, which node-llama-cpp maps to its built-in wrapper
    expect((templated as unknown as { chatWrapper: unknown }).chatWrapper).toBeInstanceOf(ChatMLChatWrapper);
  });

  test("a base model's reply holds only what it wrote: never the label that opened its turn", async () => {
    for (const seed of [1, 2, 3]) {
      const r = await base.generate({ conversationKey: `t${seed}`, messages, maxTokens: 12, minTokens: 4, seed, speaker: "Idris Vane" });
      expect(r.text).not.toMatch(/^\s*Idris Vane:/);
      expect(r.promptTokens).toBeGreaterThan(base.countChatTokens(messages) - 1);
    }
  });
});
