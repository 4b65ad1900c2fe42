/** Every project starts with these tags (DESIGN.md "Default tags"). */
export const DEFAULT_TAGS = ["general", "history", "geography", "factions", "characters", "items", "quests"] as const;

/** Spec defaults (Project settings, Limits). */
export const DEFAULT_SETTINGS = {
  longTermMemoryEnabled: true,
  maxSessionLength: 20,
  maxSessionTokens: 50000,
  enhancedMemoryRetrieval: false,
} as const;

export const DEFAULT_RATE_LIMITS = { perPlayerPerMinute: 60, perProjectPerMinute: 200 } as const;

export const MICRO_PER_CREDIT = 1_000_000;
