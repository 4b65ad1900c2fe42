/**
 * Who speaks next in a scene: a pure function of who is present, what was just said and how far the turn has
 * gone, with the turn's random numbers passed in (the caller seeds them; unit tables pin every rule).
 *
 * 1. A `speaker` in the request chooses the turn's first line.
 * 2. A present mind addressed by name in the last line answers (the first named, never the line's own speaker).
 * 3. Otherwise a weighted draw: talkativeness × (1 + RELEVANCE_WEIGHT × relevance to the last line), never the
 *    mind that spoke the last line.
 * Lines after the first are NPCs talking among themselves: each further line is less likely (CONTINUE_FIRST,
 * then × CONTINUE_DECAY per line) unless a mind was addressed, and the turn's maxLines is the hard cap.
 */

export interface SpeakerCandidate {
  mindId: string;
  name: string;
  /** 0 (speaks only when addressed or asked) … 1 */
  talkativeness: number;
  /** lower-case words the mind cares about (role, knowledge): relevance is their share in the last line */
  topics: string[];
}

export interface SpeakerInput {
  present: SpeakerCandidate[];
  /** the mind that said the last line; null when the player (or nobody) did */
  lastSpeakerId: string | null;
  lastLine: string | null;
  /** the line's index within this turn (0: the turn's first) */
  position: number;
  /** the request's `speaker`: the first line's speaker */
  requested?: string | null;
  /** uniform in [0, 1): does the chain go on */
  roll: number;
  /** uniform in [0, 1): the weighted draw */
  draw: number;
}

export type SpeakerReason = "requested" | "addressed" | "talkativeness";

export interface SpeakerPick {
  mindId: string;
  reason: SpeakerReason;
  /** the drawn mind's weight and the chain's chance of going on at this line (the trace's "why them") */
  weight?: number;
  chance?: number;
  relevance?: number;
}

export const CONTINUE_FIRST = 0.6;
export const CONTINUE_DECAY = 0.5;
export const RELEVANCE_WEIGHT = 2;
/** the weight floor of the turn's first line: someone always answers the player */
const FIRST_LINE_FLOOR = 0.01;

/** The chance that an unaddressed line `position` (≥ 1) is said at all. */
export function continueChance(position: number): number {
  return position <= 0 ? 1 : CONTINUE_FIRST * CONTINUE_DECAY ** (position - 1);
}

export function nextSpeaker(input: SpeakerInput): SpeakerPick | null {
  const { present, lastSpeakerId, position } = input;
  if (position === 0 && input.requested) {
    return present.some((m) => m.mindId === input.requested) ? { mindId: input.requested, reason: "requested" } : null;
  }
  const addressed = addressedMind(present, input.lastLine, lastSpeakerId);
  if (addressed) return { mindId: addressed, reason: "addressed" };
  const chance = continueChance(position);
  if (input.roll >= chance) return null;
  const others = present.filter((m) => m.mindId !== lastSpeakerId);
  if (!others.length) return null;
  const lastWords = new Set(words(input.lastLine ?? ""));
  const scored = others.map((m) => {
    const relevance = m.topics.length ? m.topics.filter((t) => lastWords.has(t)).length / m.topics.length : 0;
    const base = Math.max(0, Math.min(1, m.talkativeness)) * (1 + RELEVANCE_WEIGHT * relevance);
    return { m, relevance, weight: position === 0 ? Math.max(FIRST_LINE_FLOOR, base) : base };
  });
  const total = scored.reduce((n, s) => n + s.weight, 0);
  if (total <= 0) return null;
  let at = input.draw * total;
  for (const s of scored) {
    at -= s.weight;
    if (at < 0 || s === scored[scored.length - 1]) {
      return { mindId: s.m.mindId, reason: "talkativeness", weight: round(s.weight / total), chance: round(chance), relevance: round(s.relevance) };
    }
  }
  return null;
}

/** The first present mind named in the line (whole word, any case, by any word of its name), not the line's speaker. */
export function addressedMind(present: SpeakerCandidate[], line: string | null, speakerId: string | null): string | null {
  if (!line) return null;
  let best: { id: string; at: number } | null = null;
  for (const m of present) {
    if (m.mindId === speakerId) continue;
    for (const part of nameParts(m.name)) {
      const hit = new RegExp(`(^|[^\\p{L}\\p{N}])${escape(part)}(?![\\p{L}\\p{N}])`, "iu").exec(line);
      if (hit && (!best || hit.index < best.at)) best = { id: m.mindId, at: hit.index };
    }
  }
  return best?.id ?? null;
}

/** Words of a name worth answering to: "Garrick", "Elena Vask" → elena, vask; short words and titles are skipped. */
function nameParts(name: string): string[] {
  const skip = new Set(["the", "old", "young", "sir", "lady", "lord", "mr", "mrs", "miss", "master", "captain", "of"]);
  return name.split(/[\s,]+/).filter((w) => w.length >= 3 && !skip.has(w.toLowerCase()));
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? [];
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const round = (x: number) => Math.round(x * 1000) / 1000;
