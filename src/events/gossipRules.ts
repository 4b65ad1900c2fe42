/**
 * How gossip travels (src/events/gossip.ts). A mind's level says what it passes on and how soon; a
 * relationship's type says how much its two minds tell each other. A teller passes a memory to a
 * neighbour when importance × weight reaches the teller's threshold; the hearer's memory is weaker
 * (× weight × FADE, at least 1), so a story dies out after a few hops unless it is big news.
 */
export const GOSSIP_LEVELS = ["silent", "discreet", "normal", "chatty", "town-crier"] as const;
export type GossipLevel = (typeof GOSSIP_LEVELS)[number];
export const DEFAULT_GOSSIP_LEVEL: GossipLevel = "normal";

/** The least importance × weight a mind passes on (silent: never). */
export const GOSSIP_THRESHOLD: Record<GossipLevel, number> = { silent: Number.POSITIVE_INFINITY, discreet: 7, normal: 5, chatty: 3, "town-crier": 1 };

/** Minutes between a mind learning something and its neighbours knowing it (one hop). */
export const HOP_DELAY_MINUTES: Record<GossipLevel, number> = { silent: 0, discreet: 240, normal: 60, chatty: 20, "town-crier": 5 };

/** A hop keeps this share of what is passed on (after the relationship's weight). */
export const FADE = 0.8;

/** No story travels further than this many hops from its witnesses, whatever its importance. */
export const MAX_HOPS = 6;

/**
 * How much two minds tell each other, by built-in relationship type (both directions: talk goes both ways).
 * Enemies tell each other nothing; a custom type counts as CUSTOM_WEIGHT.
 */
export const RELATIONSHIP_WEIGHT: Record<string, number> = {
  FAMILY: 1,
  ROMANTIC: 1,
  FRIEND: 1,
  ALLY: 0.8,
  MENTOR: 0.8,
  STUDENT: 0.8,
  EMPLOYER: 0.7,
  EMPLOYEE: 0.7,
  NEUTRAL: 0.5,
  RIVAL: 0.3,
  ENEMY: 0,
};
export const CUSTOM_WEIGHT = 0.5;

export function isGossipLevel(v: unknown): v is GossipLevel {
  return typeof v === "string" && (GOSSIP_LEVELS as readonly string[]).includes(v);
}

/** What a neighbour hears, or null when the teller keeps it to itself. */
export function passOn(importance: number, weight: number, level: GossipLevel): number | null {
  if (weight <= 0 || importance * weight < GOSSIP_THRESHOLD[level]) return null;
  return Math.max(1, Math.floor(importance * weight * FADE));
}
