import { ROLE_MARKERS } from "../../src/llm/cleanReply.ts";
import { metaTalk, PROMPT_MARKERS } from "../../src/npc/replies/detectors.ts";

// What a reply on real weights is checked for by the hygiene test. The reply guard's own checks (echo, meta talk,
// prompt echo, wrong person, secrets, repetition) live in the product (src/npc/replies/detectors.ts); bench/quality.ts
// counts them all.

/** The section headings the server puts into a user turn (src/npc/prompt/renderTurn.ts). */
export const HEADINGS = ["[Lore]", "[Player]", "[Scene]", "[You remember about this player]", "[Now]"];
const ROLE_LABEL = /^\s*(player|user|assistant|system|model)\s*:/im;

/** What the construction guarantees (stop triggers + cleanReply): must hold for every reply. */
export function hardProblems(reply: string): string[] {
  const out: string[] = [];
  for (const m of ROLE_MARKERS) if (reply.includes(m)) out.push(`marker ${m}`);
  for (const h of HEADINGS) if (reply.includes(h)) out.push(`heading ${h}`);
  if (ROLE_LABEL.test(reply)) out.push("role label");
  if (/<\/?(start_of_turn|end_of_turn|s)>|<\|[a-z_]+\|>/.test(reply)) out.push("template token");
  return out;
}

/** What depends on the model's behaviour: measured and reported. */
export function softProblems(reply: string): string[] {
  const out: string[] = [];
  if (reply.trim() === "") out.push("empty");
  for (const s of PROMPT_MARKERS) if (reply.toLowerCase().includes(s)) out.push(`system prompt "${s}"`);
  const meta = metaTalk(reply);
  if (meta) out.push(`meta ${meta}`);
  if (inventedHeading(reply)) out.push("invented heading");
  return out;
}

/**
 * A reply that opens itself, or a line, with a parenthesised or bracketed title, copying how lore notes
 * were once laid out (`(The Rumble in the Night) …`, `[Rusty Tankard]`, `**Lore:**`).
 */
export function inventedHeading(reply: string): boolean {
  return /(^|\n)\s*(\([^()\n]{2,80}\)|\[[^\[\]\n]{2,80}\]|\*\*[^*\n]{2,80}\*\*|#{1,4} )/.test(reply);
}
