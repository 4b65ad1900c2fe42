/** The usual constant from Cormack et al. (2009): damps the weight of the very top ranks. */
export const RRF_K = 60;

export interface Fused<T> {
  item: T;
  score: number;
  /** 1-based positions in each input list, null when absent from it. */
  ranks: (number | null)[];
}

/**
 * Reciprocal rank fusion: score = Σ 1 / (k + rank). Items are matched by `key`.
 * Ties break on the best single rank, then on the ranks list by list (the first list's first), and only then on the
 * key. Why not on the key sooner: two items ranked 1st and 2nd in one list and 2nd and 1st in the other tie on both
 * score and best rank, and a key such as a chunk's id is drawn anew at each import, so one world read its notes in
 * another order from one load to the next (a turn's prompt changed with nothing in the world changed).
 */
export function reciprocalRankFusion<T>(lists: T[][], key: (item: T) => string, k = RRF_K): Fused<T>[] {
  const byKey = new Map<string, Fused<T>>();
  lists.forEach((list, li) => {
    list.forEach((item, i) => {
      const id = key(item);
      let f = byKey.get(id);
      if (!f) {
        f = { item, score: 0, ranks: lists.map(() => null) };
        byKey.set(id, f);
      }
      if (f.ranks[li] !== null) return; // a duplicate within one list counts once
      f.ranks[li] = i + 1;
      f.score += 1 / (k + i + 1);
    });
  });
  const rank = (r: number | null) => r ?? Infinity;
  const best = (f: Fused<T>) => Math.min(...f.ranks.map(rank));
  const byLists = (a: Fused<T>, b: Fused<T>) => {
    for (let i = 0; i < a.ranks.length; i++) if (rank(a.ranks[i]) !== rank(b.ranks[i])) return rank(a.ranks[i]) - rank(b.ranks[i]);
    return 0;
  };
  return [...byKey.entries()]
    .sort(([ka, a], [kb, b]) => b.score - a.score || best(a) - best(b) || byLists(a, b) || (ka < kb ? -1 : ka > kb ? 1 : 0))
    .map(([, f]) => f);
}
