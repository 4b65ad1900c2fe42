import type { ChatWrapper } from "node-llama-cpp";
import { transcriptSystem, transcriptUserTurn, type TranscriptLayout } from "./transcriptTurn.ts";

/**
 * How a model with a chat template of its own reads the server's sections: `layout` null, as the server wrote them
 * (in use); else re-laid as a base model's transcript is (transcriptTurn.ts), inside the model's own turn markers.
 * Measured on SmolLM2-135M-Instruct with the naive prompt's layout and not adopted: level with the server's sections on
 * the tuning worlds (14 vs 14 of 126; BENCHMARKS.md "SmolLM2 and the naive layout in its own template").
 * bench/chatLayoutQuality.ts sets it for one process.
 */
export const CHAT_LAYOUT: { layout: TranscriptLayout | null } = { layout: null };

/**
 * `wrapper` with the system text and each user turn re-laid as `CHAT_LAYOUT` says (read when the wrapper is made, so
 * every prompt a model is given, counted, cached or generated from, is laid out the same). Unchanged when it is null.
 */
export function chatLayout<W extends ChatWrapper>(wrapper: W, layout: TranscriptLayout | null = CHAT_LAYOUT.layout): W {
  if (!layout) return wrapper;
  const inner = wrapper.generateContextState.bind(wrapper);
  wrapper.generateContextState = (options) =>
    inner({
      ...options,
      chatHistory: options.chatHistory.map((item) => {
        // Plain text only (every prompt the server writes); special tokens are left as they are. No speaker is named
        // in a chat template's turns: the layout's notes and the player's line do not need one.
        if (item.type === "system" && typeof item.text === "string") return { ...item, text: transcriptSystem(item.text, "", layout) };
        if (item.type === "user") return { ...item, text: transcriptUserTurn(item.text, "", layout) };
        return item;
      }),
    });
  return wrapper;
}
