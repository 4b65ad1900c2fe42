import { kept } from "../secrets/secretFraming.ts";

interface Hit {
  chunkId: string;
  secret?: boolean;
  revealed?: boolean;
  documentId: string;
}

/**
 * Which of this turn's hits (best first) become the turn's [Lore] notes. The first turn brings in what neither
 * the conversation nor the mind's static prompt (its shared lore) already carries; a follow-up adds a chunk only
 * when its best hit is not yet there (then that one chunk), so a follow-up evaluates little more than the
 * player's new line and KV-cache reuse stays worth having.
 *
 * The focus note: the turn's best hit comes with the player's line even when the static prompt already carries
 * it (once a conversation: not when an earlier turn brought it), so the note that answers sits next to the
 * question, where a small model attends most, and not only somewhere among the mind's shared notes. A kept secret
 * is never repeated this way: it stays where it is, once.
 */
export function turnLoreCandidates<T extends Hit>(hits: T[], o: { inHistory: Set<string>; shared: Set<string>; firstTurn: boolean }): T[] {
  const best = hits[0];
  const focus = best && !o.inHistory.has(best.chunkId) && !kept(best) ? best : undefined;
  if (!o.firstTurn) return best && !o.inHistory.has(best.chunkId) && (focus || !o.shared.has(best.chunkId)) ? [best] : [];
  return hits.filter((h) => h === focus || (!o.inHistory.has(h.chunkId) && !o.shared.has(h.chunkId)));
}
