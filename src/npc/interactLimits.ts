/** The spec's limits for POST /npc/interact (Limits table). */
export const INTERACT_LIMITS = {
  textChars: 2000,
  playerIdChars: 255,
  activeTags: 50,
  activeTagChars: 100,
  historyMessages: 50,
  historyMessageChars: 10_000,
  contextStringChars: 200,
  contextCustomChars: 500,
  contextArrayItems: 10,
  contextArrayItemChars: 100,
  contextTotalChars: 2000,
  /** per-request `state` overrides (an addition to the spec's body): keys per request */
  stateKeys: 50,
} as const;

export const CONTEXT_STRING_FIELDS = [
  "location", "locationDetails", "timeOfDay", "weather", "atmosphere", "situation", "npcMood", "npcActivity",
  "playerAppearance", "playerReputation", "custom",
] as const;
export const CONTEXT_ARRAY_FIELDS = ["playerVisibleItems", "nearbyCharacters", "nearbyObjects", "recentEvents"] as const;
export const TOP_LEVEL_FIELDS = ["text", "entityMindId", "playerId", "context", "memory", "activeKnowledgeTags", "conversationHistory", "state"] as const;
