/**
 * When the shared-lore level is chosen again from retrieval counts (hysteresis). A new choice changes the
 * mind's static prompt: its prefix snapshot is warmed again and every live conversation with the mind
 * loses its cached prompt at its next turn. So under ordinary play the choice must settle: it is made
 * again only when (1) the mind's retrievals at least doubled since the choice (and reached
 * REFRESH_MIN_HITS), (2) RECHOICE_MIN_INTERVAL_MS passed since it, and (3) the change is material: the
 * chunks the new choice would bring in were retrieved more often than the chunks it would drop, by
 * RECHOICE_MIN_GAIN of the dropped chunks' count and by at least RECHOICE_MIN_GAIN_HITS. Counts that only
 * reshuffle near-equal chunks (players asking about everything the mind knows) never pass (3); a lasting
 * shift of interest does, once the new chunks' count overtakes the old ones' by that margin.
 * A choice that no longer matches the lore it was made from is a different matter: it is made again at
 * once, whatever the counts (sharedLore.ts, loreInputs).
 */

/** Retrievals a mind needs (and twice its count at the choice) before counts are looked at again. */
export const REFRESH_MIN_HITS = 20;
/** Shortest time between two choices made from counts. */
export const RECHOICE_MIN_INTERVAL_MS = 10 * 60_000;
/** How much more often the chunks brought in must have been retrieved than the chunks dropped (share of the latter). */
export const RECHOICE_MIN_GAIN = 0.25;
/** Fewest hits the new choice must add (early counts are noise). */
export const RECHOICE_MIN_GAIN_HITS = 10;

export interface RechoiceInput {
  /** the stored choice's chunk ids */
  current: readonly string[];
  /** what a choice made now from the counts would hold */
  candidate: readonly string[];
  /** the mind's recorded retrievals per chunk */
  hits: ReadonlyMap<string, number>;
  /** the mind's recorded retrievals now, all chunks */
  totalHits: number;
  /** ... and when the current choice was made */
  hitsAt: number;
  /** time since the current choice was made */
  sinceMs: number;
}

export type RechoiceVerdict = "few-hits" | "too-soon" | "same" | "not-material" | "rechoose";

/** Whether the counts justify replacing the current choice (see the module comment). */
export function rechoiceVerdict(i: RechoiceInput): RechoiceVerdict {
  const wait = rechoiceWait(i);
  if (wait) return wait;
  const same = i.candidate.length === i.current.length && i.candidate.every((id) => i.current.includes(id));
  if (same) return "same";
  const served = (ids: readonly string[]) => ids.reduce((n, id) => n + (i.hits.get(id) ?? 0), 0);
  const dropped = served(i.current.filter((id) => !i.candidate.includes(id)));
  const added = served(i.candidate.filter((id) => !i.current.includes(id)));
  return added - dropped >= Math.max(RECHOICE_MIN_GAIN_HITS, RECHOICE_MIN_GAIN * dropped) ? "rechoose" : "not-material";
}

/** Rules (1) and (2): too early to look at what the counts would choose (null: look). */
export function rechoiceWait(i: Pick<RechoiceInput, "totalHits" | "hitsAt" | "sinceMs">): "few-hits" | "too-soon" | null {
  if (i.totalHits < Math.max(REFRESH_MIN_HITS, 2 * i.hitsAt)) return "few-hits";
  if (i.sinceMs < RECHOICE_MIN_INTERVAL_MS) return "too-soon";
  return null;
}
