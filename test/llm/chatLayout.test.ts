import { describe, expect, test } from "bun:test";
import { ChatMLChatWrapper } from "node-llama-cpp";
import { chatLayout } from "../../src/llm/chatLayout.ts";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { CHAT_LAYOUTS } from "../../bench/support/baseLayouts.ts";

// A chat model's prompt re-laid inside its own template (the measured lever for SmolLM2, off unless set).
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
const turn = "[Lore]\nAbout The Fares: Four bits a ride.\n\n[Player]\nWhat does a ride cost?";
const render = (w: ChatMLChatWrapper) => w.generateContextState({ chatHistory: toChatHistory([{ role: "system", content: system }, { role: "user", content: turn }]) }).contextText.toString();

describe("chatLayout", () => {
  test("off: the server's sections as written", () => {
    expect(render(chatLayout(new ChatMLChatWrapper(), null))).toBe(render(new ChatMLChatWrapper()));
  });

  test("the naive prompt's layout inside the template: plain persona, documents, the player's line alone", () => {
    const text = render(chatLayout(new ChatMLChatWrapper(), CHAT_LAYOUTS.naiveChat));
    expect(text).toContain("<|im_start|>system\nYou are Idris Vane, Keeper of the incline.\ngruff.\n\nThe Incline:\nTwo cars, the Magpie and the Wren.<|im_end|>");
    expect(text).toContain("<|im_start|>user\nThe Fares:\nFour bits a ride.\n\nWhat does a ride cost?<|im_end|>");
    expect(text).not.toMatch(/\[Lore\]|\[Player\]|People you know|Stay in character/);
  });
});
