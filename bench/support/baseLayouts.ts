/**
 * The transcript layouts measured for a model without a chat template (src/llm/transcriptTurn.ts), by name: what
 * bench/transcriptLayouts.ts screens on first samples and bench/baseLayoutQuality.ts runs through the whole product.
 */
import { SECTIONS_LAYOUT, type TranscriptLayout } from "../../src/llm/transcriptTurn.ts";

const KNOWS_EXAMPLE: TranscriptLayout = { notes: "knows", player: "script", example: true, oneLine: false };

export const BASE_LAYOUTS: Record<string, TranscriptLayout> = {
  sections: SECTIONS_LAYOUT,
  script: { ...SECTIONS_LAYOUT, player: "script" },
  sectionsExample: { ...SECTIONS_LAYOUT, example: true },
  sectionsLine: { ...SECTIONS_LAYOUT, oneLine: true },
  knows: { notes: "knows", player: "script", example: false, oneLine: false },
  knows2: { notes: "knows", player: "script", example: false, oneLine: false, maxNotes: 2 },
  knowsExample: KNOWS_EXAMPLE,
  knows2Example: { ...KNOWS_EXAMPLE, maxNotes: 2 },
  scriptExample: { ...SECTIONS_LAYOUT, player: "script", example: true },
  knowsLine: { notes: "knows", player: "script", example: false, oneLine: true },
  knowsExampleLine: { ...KNOWS_EXAMPLE, oneLine: true },
  knowsExampleTurn: { ...KNOWS_EXAMPLE, exampleAt: "turn" },
  docsExample: { ...KNOWS_EXAMPLE, notes: "docs" },
  knowsTwo: { ...KNOWS_EXAMPLE, exampleKind: "two" },
  knowsUnknown: { ...KNOWS_EXAMPLE, exampleKind: "unknown" },
  knowsPlain: { ...KNOWS_EXAMPLE, instructions: "dropped" },
  docsExampleTurn: { ...KNOWS_EXAMPLE, notes: "docs", exampleAt: "turn" },
  // The naive prompt's differences, one group at a time, then all of them (BENCHMARKS.md "the smallest models (fifth round)").
  /** order: the example after the mind's shared lore, next to the question (still in the cached prefix) */
  knowsExampleEnd: { ...KNOWS_EXAMPLE, exampleAt: "end" },
  /** the persona as the naive prompt writes one: no chat instructions, labels or list headings */
  knowsExamplePersona: { ...KNOWS_EXAMPLE, persona: "plain" },
  /** no location, "People you know" or knowledge description */
  knowsExampleBare: { ...KNOWS_EXAMPLE, personaExtras: "dropped" },
  /** the naive prompt's layout but the persona as the server writes it (instructions, labels, headings kept) */
  naiveServerPersona: { ...KNOWS_EXAMPLE, notes: "docs", exampleNotes: "knows", exampleAt: "end", personaExtras: "dropped" },
  /** all of the above with the notes as pasted documents: the naive prompt's layout over Lorehold's prefix and notes */
  naiveLike: { ...KNOWS_EXAMPLE, notes: "docs", exampleNotes: "knows", exampleAt: "end", persona: "plain", personaExtras: "dropped" },
};

/** A chat model's prompt re-laid inside its own template (src/llm/chatLayout.ts), by name: bench/chatLayoutQuality.ts. */
export const CHAT_LAYOUTS: Record<string, TranscriptLayout> = {
  /**
   * the naive prompt's layout: the persona as an author writes it (no chat instructions, labels, list headings,
   * location or "People you know"), the mind's lore and the turn's notes as pasted documents, the player's line alone
   */
  naiveChat: { notes: "docs", player: "bare", example: false, persona: "plain", personaExtras: "dropped", oneLine: false },
};
