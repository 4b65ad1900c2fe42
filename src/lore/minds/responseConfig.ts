/** DESIGN.md "Entity Mind fields the spec leaves opaque": responseConfig. */
export type Verbosity = "terse" | "balanced" | "verbose";
export const VERBOSITY_TOKENS: Record<Verbosity, number> = { terse: 80, balanced: 200, verbose: 400 };
/**
 * Sentences a reply may have by default: NPC lines in games are one to three sentences. A reply ends at the end of
 * the sentence that reaches the limit (src/npc/replies), whatever tokens remain.
 */
export const VERBOSITY_SENTENCES: Record<Verbosity, number> = { terse: 2, balanced: 3, verbose: 5 };
/** The most sentences an author may allow. */
export const MAX_SENTENCES_LIMIT = 12;

export interface ResponseConfig {
  verbosity: Verbosity;
  maxTokens: number;
  temperature: number;
  maxSentences: number;
}

export interface StoredResponseConfig {
  verbosity?: Verbosity;
  maxTokens?: number | null;
  temperature?: number | null;
  maxSentences?: number | null;
}

/** The effective config: verbosity sets the default reply cap and sentence limit, maxTokens and maxSentences override them, temperature 0.7. */
export function effectiveResponseConfig(stored: StoredResponseConfig | null | undefined): ResponseConfig {
  const verbosity = stored?.verbosity && stored.verbosity in VERBOSITY_TOKENS ? stored.verbosity : "balanced";
  return {
    verbosity,
    maxTokens: stored?.maxTokens ?? VERBOSITY_TOKENS[verbosity],
    temperature: stored?.temperature ?? 0.7,
    maxSentences: stored?.maxSentences ?? VERBOSITY_SENTENCES[verbosity],
  };
}
