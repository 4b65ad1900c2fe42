/**
 * Turn markers of the common chat templates. A reply must never carry them: they are stop
 * triggers during generation, and `cleanReply` removes any that slipped through.
 */
export const TURN_START_MARKERS = [
  "<|im_start|>", // ChatML (Qwen, many fine-tunes)
  "<|start_header_id|>", // Llama 3
  "<start_of_turn>", // Gemma
  "[INST]", // Llama 2 / Mistral
  "<|user|>", // Phi-3, Zephyr
  "<|system|>",
  "<|assistant|>",
] as const;

export const TURN_END_MARKERS = [
  "<|im_end|>",
  "<|eot_id|>",
  "<|end_header_id|>",
  "<end_of_turn>",
  "[/INST]",
  "<|end|>",
  "<|endoftext|>",
  "</s>",
] as const;

export const ROLE_MARKERS: readonly string[] = [...TURN_START_MARKERS, ...TURN_END_MARKERS];

/** Trims the reply, cuts it where the model began another turn and drops leftover markers. */
export function cleanReply(text: string): string {
  let out = text;
  for (const marker of ROLE_MARKERS) {
    const at = out.indexOf(marker);
    if (at >= 0) out = out.slice(0, at); // whatever follows a marker is a new turn, not this reply
  }
  return out.replace(/<s>/g, "").trim();
}
