import { keywords } from "./memoryText.ts";
import { scopeMemories } from "./memoryRows.ts";
import type { Memory, MemoryContext } from "./types.ts";

/** Memories given to the prompt by default (DESIGN.md "Sessions and memory"). */
export const DEFAULT_MEMORY_LIMIT = 5;
/** Recency halves every this many days. */
export const RECENCY_HALF_LIFE_DAYS = 30;

/**
 * Weights of the enhanced (hybrid) score; each term is in [0, 1]:
 *   similarity: cosine similarity of the memory to the player's text (LanceDB), below 0 → 0
 *   keywords:   share of the query's content words found in the memory's text or topics
 *   importance: importance / 10
 *   recency:    0.5^(ageDays / 30)
 * Relevance dominates; importance and recency break ties between equally relevant memories
 * and keep a vital old fact above an irrelevant new one.
 */
export const ENHANCED_WEIGHTS = { similarity: 0.45, keywords: 0.2, importance: 0.2, recency: 0.15 } as const;

/** Memories compared by vector in enhanced mode (the rest count as similarity 0). */
const MAX_VECTOR_CANDIDATES = 200;

const DAY_MS = 86_400_000;

/**
 * A memory that says who the player is: their name. The mind needs it on every turn of a later conversation, not
 * only when the player's line resembles it: "Do you remember me?" or "Evening again" shares no word with "The
 * player's name is Mara.", and a name stored at a lower importance than the player's other facts fell out of the
 * five a turn carries. The summariser writes it so (summaryPrompt.ts: starts with "The player", topic "name").
 */
export function namesThePlayer(m: Pick<Memory, "text" | "topics">): boolean {
  return m.topics.some((t) => /^(name|identity)$/i.test(t)) || /\bplayer's (?:full |real )?name\b|\bplayer (?:is|goes by|was) (?:called|named|known as)\b/i.test(m.text);
}
/** Memories naming the player kept ahead of the ranking, at most this many (a merged name rarely needs two). */
const NAME_MEMORIES = 1;

/**
 * Up to `limit` (default 5) memories of this player with this mind, best first.
 *
 * Default: score = importance × 0.5^(ageDays / 30), age counted from updatedAt
 * (a merge re-confirms a fact). Enhanced: the weighted hybrid of
 * ENHANCED_WEIGHTS. Candidates always come from SQLite, so a memory whose row is
 * gone is never returned even while its vector awaits the purge. Ties are broken
 * by id, so the order is deterministic. The best memory that names the player (namesThePlayer) is always among
 * them, first, whatever its score.
 */
export async function retrieveMemories(
  ctx: MemoryContext,
  q: { projectId: string; mindId: string; playerId: string; query: string; enhanced: boolean; limit?: number },
): Promise<(Memory & { score: number })[]> {
  const limit = Math.max(0, Math.floor(q.limit ?? DEFAULT_MEMORY_LIMIT));
  if (limit === 0) return [];
  const memories = scopeMemories(ctx.db, { projectId: q.projectId, mindId: q.mindId, playerId: q.playerId });
  if (!memories.length) return [];
  const now = ctx.clock.now().getTime();
  const recency = (m: Memory) => {
    const ageDays = Math.max(0, (now - Date.parse(m.updatedAt)) / DAY_MS);
    return Number.isFinite(ageDays) ? 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS) : 0;
  };

  let scored: (Memory & { score: number })[];
  if (!q.enhanced) {
    scored = memories.map((m) => ({ ...m, score: m.importance * recency(m) }));
  } else {
    const queryWords = keywords(q.query);
    const similarity = new Map<string, number>();
    if (queryWords.size > 0) {
      const hits = await ctx.vectors.searchMemories({
        projectId: q.projectId,
        entityMindId: q.mindId,
        playerId: q.playerId,
        query: q.query,
        k: Math.min(memories.length, MAX_VECTOR_CANDIDATES),
      });
      for (const h of hits) similarity.set(h.id, Math.min(1, Math.max(0, h.score)));
    }
    const w = ENHANCED_WEIGHTS;
    scored = memories.map((m) => {
      const own = keywords(`${m.text} ${m.topics.join(" ")}`);
      let shared = 0;
      for (const k of queryWords) if (own.has(k)) shared++;
      const keywordScore = queryWords.size ? shared / queryWords.size : 0;
      const score =
        w.similarity * (similarity.get(m.id) ?? 0) + w.keywords * keywordScore + w.importance * (m.importance / 10) + w.recency * recency(m);
      return { ...m, score };
    });
  }
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const named = scored.filter(namesThePlayer).slice(0, NAME_MEMORIES);
  return [...named, ...scored.filter((m) => !named.includes(m))].slice(0, limit);
}
