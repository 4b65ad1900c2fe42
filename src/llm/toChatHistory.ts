import type { ChatHistoryItem } from "node-llama-cpp";
import type { ChatMessage } from "./types.ts";

/**
 * Our messages as node-llama-cpp chat history, ending with the empty model turn that the
 * generation fills in (the shape `LlamaChat.generateResponse` continues from). `opening`: for a
 * transcript layout (transcriptChatWrapper.ts), the heading that opens each reply, put at the end
 * of the turn before it so that the reply itself holds only what the model wrote.
 */
export function toChatHistory(messages: readonly ChatMessage[], opening?: string): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((m): ChatHistoryItem => {
    switch (m.role) {
      case "system":
        return { type: "system", text: m.content };
      case "user":
        return { type: "user", text: opening ? `${m.content}${opening}` : m.content };
      case "assistant":
        return { type: "model", response: [m.content] };
    }
  });
  history.push({ type: "model", response: [] });
  return history;
}
