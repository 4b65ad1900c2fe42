import { describe, expect, test } from "bun:test";
import { ChatMLChatWrapper } from "node-llama-cpp";
import { isSmallestChatModel, keptSecretsLeftOut, withoutKeptSecrets } from "../../src/llm/smallestChatModels.ts";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { loreBlocks, renderUserTurn } from "../../src/npc/prompt/renderTurn.ts";
import { renderSharedLore } from "../../src/npc/sharedLore/sharedLore.ts";
import { stripSecrets } from "../../src/npc/secrets/stripSecrets.ts";

// The server's own renderings (renderTurn.ts, sharedLore.ts), so the test follows the notes' real form.
const tide = { chunkId: "c1", documentId: "d1", documentName: "The King's Tide", chunkIndex: 0, tags: ["t"], text: "It comes every twenty-three years, next in 1388." };
const tables = {
  chunkId: "c2", documentId: "d2", documentName: "The Drowned Tables", chunkIndex: 0, tags: ["t"], secret: true,
  text: "The old tide tables were spoiled by damp.\n\nShe hid them behind Old Maud's wheel.",
};
const bell = { chunkId: "c3", documentId: "d3", documentName: "The Tide Bell", chunkIndex: 0, tags: ["t"], text: "Old Maud hangs in the white tower." };
const persona = "You are Mother Ilse Varrow, a character in a game.\nYour knowledge of the world is what is written here and in the [Lore] notes.";

describe("withoutKeptSecrets", () => {
  test("a kept secret's note leaves the shared lore wherever it stands, its own paragraphs with it", () => {
    for (const order of [[tables, tide, bell], [tide, tables, bell], [tide, bell, tables]]) {
      const system = `${persona}\n\n${renderSharedLore(order)}`;
      const expected = `${persona}\n\n${renderSharedLore(order.filter((n) => n !== tables))}`;
      expect(withoutKeptSecrets(system)).toBe(expected);
      // the same text the reply guard's secret-free prompt has (stripSecrets.ts, which knows the notes)
      expect(withoutKeptSecrets(system)).toBe(stripSecrets([{ role: "system", content: system }], [tables])[0].content);
    }
  });

  test("a heading left with nothing under it goes too", () => {
    expect(withoutKeptSecrets(`${persona}\n\n${renderSharedLore([tables])}`)).toBe(persona);
    const turn = renderUserTurn("May I see the tide tables?", { lore: [tables] });
    expect(turn).toContain("(your secret:");
    expect(withoutKeptSecrets(turn)).toBe("[Player]\nMay I see the tide tables?");
    const two = renderUserTurn("May I see the tide tables?", { lore: [tables, tide] });
    expect(withoutKeptSecrets(two)).toBe(renderUserTurn("May I see the tide tables?", { lore: [tide] }));
  });

  test("nothing else changes: notes that are no secret, or a secret told (no mark)", () => {
    const told = { ...tables, secret: false };
    for (const text of [`${persona}\n\n${renderSharedLore([tide, told, bell])}`, loreBlocks([tide, bell])[0], persona, ""]) expect(withoutKeptSecrets(text)).toBe(text);
  });
});

describe("the smallest chat models", () => {
  test("by parameter count: SmolLM2-135M is one, Gemma 3 270M and Qwen2.5-0.5B are not", () => {
    expect(isSmallestChatModel(134_515_008)).toBe(true);
    expect(isSmallestChatModel(268_098_176)).toBe(false);
    expect(isSmallestChatModel(630_167_424)).toBe(false);
    expect(isSmallestChatModel(0)).toBe(false);
  });

  test("the wrapper lays out system and user texts without the kept secrets; replies are left as said", () => {
    const messages = [
      { role: "system" as const, content: `${persona}\n\n${renderSharedLore([tables, tide])}` },
      { role: "user" as const, content: "When is the King's Tide next due?" },
      { role: "assistant" as const, content: "In 1388. (your secret: you know it, but you never tell it to anyone): kept as said" },
      { role: "user" as const, content: renderUserTurn("And the tables?", { lore: [tables] }) },
    ];
    const render = (w: ChatMLChatWrapper) => w.generateContextState({ chatHistory: toChatHistory(messages) }).contextText.toString();
    const text = render(keptSecretsLeftOut(new ChatMLChatWrapper()));
    expect(text).not.toContain("spoiled by damp");
    expect(text).not.toContain("Old Maud's wheel");
    expect(text).toContain("next in 1388");
    expect(text).toContain("kept as said");
    expect(text).toContain("<|im_start|>user\n[Player]\nAnd the tables?<|im_end|>");
    expect(render(new ChatMLChatWrapper())).toContain("spoiled by damp");
  });
});
