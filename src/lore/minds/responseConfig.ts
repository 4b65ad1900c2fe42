/** DESIGN.md "Entity Mind fields the spec leaves opaque": responseConfig. */
export type Verbosity = "terse" | "balanced" | "verbose";
export const VERBOSITY_TOKENS: Record<Verbosity, number> = { terse: 80, balanced: 200, verbose: 400 };

export interface ResponseConfig {
  verbosity: Verbosity;
  maxTokens: number;
  temperature: number;
}

export interface StoredResponseConfig {
  verbosity?: Verbosity;
  maxTokens?: number | null;
  temperature?: number | null;
}

/** The effective config: verbosity sets the default reply cap, maxTokens overrides it, temperature 0.7. */
export function effectiveResponseConfig(stored: StoredResponseConfig | null | undefined): ResponseConfig {
  const verbosity = stored?.verbosity && stored.verbosity in VERBOSITY_TOKENS ? stored.verbosity : "balanced";
  return {
    verbosity,
    maxTokens: stored?.maxTokens ?? VERBOSITY_TOKENS[verbosity],
    temperature: stored?.temperature ?? 0.7,
  };
}
