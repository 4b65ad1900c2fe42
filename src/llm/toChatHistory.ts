import type { ChatHistoryItem } from "node-llama-cpp";
import type { ChatMessage } from "./types.ts";

/**
 * Our messages as node-llama-cpp chat history, ending with the empty model turn that the
 * generation fills in (the shape `LlamaChat.generateResponse` continues from).
 */
export function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((m): ChatHistoryItem => {
    switch (m.role) {
      case "system":
        return { type: "system", text: m.content };
      case "user":
        return { type: "user", text: m.content };
      case "assistant":
        return { type: "model", response: [m.content] };
    }
  });
  history.push({ type: "model", response: [] });
  return history;
}
