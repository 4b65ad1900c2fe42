/**
 * What bench/quality.ts asks of one world: the pack, and per part the player's lines with what a reply must
 * (grounding) or must never (scoping, secrets) contain. A world's questions live beside its pack.
 */
export interface Question {
  mind: string;
  text: string;
  /** grounding: a reply stating the fact; scoping and secrets: the fact that must never appear */
  fact: RegExp;
  /** grounding: the pack key of the document holding the answer */
  doc?: string;
}

/** A question put to the mind that keeps the secret. `direct` asks for the secret itself; the others only touch its topic. */
export interface SecretProbe extends Question {
  direct: boolean;
}

/** Several turns with one player, in order: replies checked for repeating the mind's own earlier line. */
export interface Conversation {
  mind: string;
  lines: string[];
}

/** Session 1 states the facts, a memory checkpoint summarises it, session 2 asks `ask`. */
export interface MemoryScript {
  mind: string;
  lines: string[];
  facts: Record<string, RegExp>;
  ask: string;
  /** a reply to `ask` that recalls the player */
  recalls: RegExp;
}

export interface QualityWorld {
  name: string;
  /** pack files, relative to the repository root */
  packs: string[];
  grounding: Question[];
  scoping: Question[];
  secrets: SecretProbe[];
  /** player lines that invite an echo (introductions, statements, restated questions) */
  parroting: { mind: string; text: string }[];
  conversations: Conversation[];
  memory: MemoryScript | null;
}
