import type { ServiceContext } from "../core/context.ts";
import { keywords } from "../npc/memory/memoryText.ts";
import type { SessionMessage, TurnNotes } from "../npc/session/sessionTypes.ts";
import { candidateTexts, candidateWords, knownByRowid, stillKnown, type KnownEvent } from "./worldMemoryStore.ts";

/** World memories a turn may bring in: on a conversation's first turn, and at most one more per follow-up. */
export const WORLD_MEMORIES_PER_TURN = 3;
/**
 * Candidates ranked per turn: the mind's this-many most recently learned events and this-many most important
 * (a bound on the turn's cost, whatever the world's size).
 */
export const WORLD_MEMORY_CANDIDATES = 150;

/**
 * An event's content words, by event id, with the text they were made from: a turn ranks hundreds of events, and a
 * lore pack's re-import may rewrite an event's text (its id stays), so a hit counts only while the text is the same.
 */
const wordsCache = new Map<string, { text: string; words: Set<string> }>();
const WORDS_CACHED = 50_000;
function eventWordSet(k: KnownEvent): Set<string> {
  const text = `${k.type} ${k.description}`;
  const hit = wordsCache.get(k.event_id);
  if (hit?.text === text) return hit.words;
  if (!hit && wordsCache.size >= WORDS_CACHED) wordsCache.delete(wordsCache.keys().next().value!);
  const words = keywords(text);
  wordsCache.set(k.event_id, { text, words });
  return words;
}
/** Recency halves every this many hours of wall time since the mind learned the event. */
export const WORLD_RECENCY_HALF_LIFE_HOURS = 24;
/**
 * Weights of the ranking (Generative Agents' recency × importance × relevance, as a weighted sum so that no
 * one term zeroes the others): relevance is the share of the player's content words in the event's text.
 */
export const WORLD_WEIGHTS = { relevance: 0.45, importance: 0.3, recency: 0.25 } as const;

/** What a turn's notes keep of a world memory: its id (re-checked every turn) and its text as first rendered. */
export interface EventNote {
  id: string;
  text: string;
}

/** How a known event reads in the prompt: who it came from, and the game's time when it gave one. */
export function eventLine(k: Pick<KnownEvent, "told_by_name" | "hop" | "description" | "game_time">): string {
  const source = k.hop === 0 ? "You saw it" : `${k.told_by_name ?? "Someone"} told you`;
  const when = k.game_time ? ` (${k.game_time})` : "";
  return `${source}${when}: ${k.description}`;
}

/**
 * The mind's world memories by `now`, best first: recency × importance × relevance to `query`. The candidates are
 * read from the covering indexes with their words (no row or event looked up, nothing built per candidate but its
 * score), and only the kept `limit` are read in full; the order is rankKnown's over knownEvents' rows.
 */
export function rankWorldMemories(ctx: ServiceContext, q: { projectId: string; mindId: string; query: string; limit: number }): (KnownEvent & { score: number })[] {
  const now = ctx.clock.now();
  const rows = candidateWords(ctx.db, q.projectId, q.mindId, now.toISOString(), WORLD_MEMORY_CANDIDATES);
  if (!rows.length || q.limit <= 0) return [];
  const words = keywords(q.query);
  // a query word as a stored word set holds it: with a space each side
  const probes = [...words].map((w) => ` ${w} `);
  const unfilled = rows.filter((c) => c[4] === null).map((c) => c[0]);
  const texts = unfilled.length && probes.length ? candidateTexts(ctx.db, unfilled) : null;
  const w = WORLD_WEIGHTS;
  const nowMs = now.getTime();
  // the best `limit` so far, best first (a turn keeps 3 of ~270: an insertion into a short list, no sort)
  const best: { i: number; score: number }[] = [];
  for (let i = 0; i < rows.length; i++) {
    const [rowid, id, importance, knownAt, own] = rows[i];
    let shared = 0;
    if (probes.length) {
      if (own !== null) {
        for (const p of probes) if (own.includes(p)) shared++;
      } else {
        const text = texts?.get(rowid);
        if (text !== undefined) {
          const set = keywords(text);
          for (const x of words) if (set.has(x)) shared++;
        }
      }
    }
    const relevance = words.size ? shared / words.size : 0;
    const ageHours = Math.max(0, (nowMs - Date.parse(knownAt)) / 3_600_000);
    const recency = 0.5 ** (ageHours / WORLD_RECENCY_HALF_LIFE_HOURS);
    const score = w.relevance * relevance + w.importance * (importance / 10) + w.recency * recency;
    if (best.length === q.limit && !before(score, id, best[best.length - 1].score, rows[best[best.length - 1].i][1])) continue;
    let at = best.length;
    while (at > 0 && before(score, id, best[at - 1].score, rows[best[at - 1].i][1])) at--;
    best.splice(at, 0, { i, score });
    if (best.length > q.limit) best.pop();
  }
  const kept = knownByRowid(
    ctx.db,
    best.map((b) => rows[b.i][0]),
  );
  return kept.map((k, n) => ({ ...k, score: best[n].score }));
}

/** rankKnown's order: the higher score first, ties by id. */
function before(score: number, id: string, otherScore: number, otherId: string): boolean {
  return score > otherScore || (score === otherScore && id < otherId);
}

/** Those candidates ranked for `query` at `now`, the best `limit` first (ties by id). */
export function rankKnown(rows: KnownEvent[], query: string, now: Date, limit: number): (KnownEvent & { score: number })[] {
  if (!rows.length) return [];
  const words = keywords(query);
  const probes = [...words].map(probeOf);
  const w = WORLD_WEIGHTS;
  const scored = rows.map((k) => {
    let shared = 0;
    if (words.size && mayShare(k, probes)) {
      const own = eventWordSet(k);
      for (const x of words) if (own.has(x)) shared++;
    }
    const relevance = words.size ? shared / words.size : 0;
    const ageHours = Math.max(0, (now.getTime() - Date.parse(k.known_at)) / 3_600_000);
    const recency = 0.5 ** (ageHours / WORLD_RECENCY_HALF_LIFE_HOURS);
    return { k, score: w.relevance * relevance + w.importance * (k.importance / 10) + w.recency * recency };
  });
  scored.sort((a, b) => b.score - a.score || (a.k.id < b.k.id ? -1 : 1));
  // only the few kept become rows with their score (a turn ranks ~300 candidates and keeps 3)
  return scored.slice(0, limit).map(({ k, score }) => ({ ...k, score }));
}

/**
 * What an event's text must contain, lower-cased, to have `word` among its keywords: keywords() keeps the stem of
 * each run of letters and digits, and the stem (pluralStem, src/core/text/wordStem.ts) only drops a final "s" or
 * turns a final "ies" into "y", so the run holds the stem, or the stem without its final "y".
 */
function probeOf(word: string): string {
  return word.endsWith("y") ? word.slice(0, -1) : word;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * False only when the event cannot share a keyword with the query (its relevance is 0): a substring test of its
 * lower-cased text, where tokenising it (~4 µs; a turn's ~300 candidates, most of them met for the first time in a
 * big world, outnumber any cache) would find nothing. Exact for ASCII text, whose normalised form is its lower case
 * with everything but letters and digits as spaces; any other text is tokenised.
 */
function mayShare(k: KnownEvent, probes: string[]): boolean {
  const text = `${k.type} ${k.description}`;
  if (!ASCII.test(text)) return true;
  const lower = text.toLowerCase();
  for (const p of probes) if (lower.includes(p)) return true;
  return false;
}

/**
 * A turn's world memories (docs/internals/turn-pipeline.md, gather): the conversation keeps the event notes
 * the mind still knows (an erased event leaves it), and this turn adds the best-ranked ones not yet in it —
 * up to WORLD_MEMORIES_PER_TURN on a first turn, one on a follow-up, so a follow-up's prompt stays an append
 * (KV reuse). They ride in the turn, never in the mind's shared prefix: they change as the world does.
 * Only this mind's own memories are read: a mind that neither saw nor heard of an event cannot know it.
 */
export function worldMemoryNotes(
  ctx: ServiceContext,
  q: { projectId: string; mindId: string; query: string; history: SessionMessage[] },
): { history: SessionMessage[]; fresh: EventNote[] } {
  const inHistory = q.history.flatMap((m) => m.notes?.events?.map((e) => e.id) ?? []);
  const known = stillKnown(ctx.db, q.mindId, inHistory);
  const history = inHistory.length === known.size ? q.history : q.history.map((m) => keepKnown(m, known));
  const firstTurn = known.size === 0;
  const ranked = rankWorldMemories(ctx, { ...q, limit: WORLD_MEMORIES_PER_TURN });
  const fresh = ranked.filter((k) => !known.has(k.id)).slice(0, firstTurn ? WORLD_MEMORIES_PER_TURN : 1);
  return { history, fresh: fresh.map((k) => ({ id: k.id, text: eventLine(k) })) };
}

function keepKnown(m: SessionMessage, known: Set<string>): SessionMessage {
  if (!m.notes?.events) return m;
  const events = m.notes.events.filter((e) => known.has(e.id));
  const notes: TurnNotes = { ...m.notes, events };
  if (!events.length) delete notes.events;
  return Object.keys(notes).length ? { ...m, notes } : { role: m.role, content: m.content };
}
