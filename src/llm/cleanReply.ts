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

/**
 * Small real models (SmolLM2-135M, Gemma 3 270M) imitate the prompt: after a reply they go on with a
 * `[Player]` / `[Lore]` section of the next user turn (src/npc/prompt/renderTurn.ts) or a script-style
 * "Player:" line. Those start another turn, so the reply ends there.
 */
export const PROMPT_SECTION_MARKERS = ["[Player]", "[Lore]", "[Scene]", "[You remember about this player]", "[Now]"] as const;
/** The common spellings of a role-label line, as generation stop triggers (cleanReply catches any other). */
export const ROLE_LABEL_STOPS = ["Player", "User", "Assistant", "System", "player", "user", "PLAYER", "USER"].flatMap((r) => [`\n${r}:`, `\n${r} :`]);
const ROLE_LABEL_LINE = /(^|\n)[ \t]*(player|user|assistant|system|model)[ \t]*:/i;

/** Trims the reply, cuts it where the model began another turn and drops leftover markers. */
export function cleanReply(text: string): string {
  let out = text;
  for (const marker of ROLE_MARKERS) {
    const at = out.indexOf(marker);
    if (at >= 0) out = out.slice(0, at); // whatever follows a marker is a new turn, not this reply
  }
  for (const marker of PROMPT_SECTION_MARKERS) {
    const at = out.indexOf(marker);
    if (at >= 0) out = out.slice(0, at);
  }
  const label = ROLE_LABEL_LINE.exec(out);
  if (label) out = out.slice(0, label.index);
  return out.replace(/<s>/g, "").trim();
}
