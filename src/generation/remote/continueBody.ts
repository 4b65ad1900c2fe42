import type { ChatMessage } from "../types.ts";

/**
 * The body of a continuation on vLLM's chat completions (a typed turn's tail: remoteTail.ts): the words and
 * the delimiter as the model's unfinished reply (continue_final_message, no new generation prompt), the
 * tail's schema as guided decoding (guided_json), and no stop strings (the JSON ends where its grammar does).
 */
export function continueChatBody(body: Record<string, unknown>, messages: ChatMessage[], continuation: string, jsonSchema: object | null): void {
  body.messages = [...messages, { role: "assistant", content: continuation }];
  body.continue_final_message = true;
  body.add_generation_prompt = false;
  delete body.response_format;
  delete body.stop;
  if (jsonSchema) body.guided_json = jsonSchema;
}
