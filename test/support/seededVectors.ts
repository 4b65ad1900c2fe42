import { expect } from "bun:test";
import type { CachedRow, ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { prng } from "./prng.ts";

/** A search of the project vector cache: a query vector, the visible tags, how many hits. */
export interface CacheQuery {
  v: Float32Array;
  tags: Set<string>;
  n: number;
}

/**
 * Seeded vectors, tags and queries for the project vector cache's tests (its rows, columns, index and compaction):
 * plain JS arithmetic on a seeded generator, so every CPU sees the same data and the same answers.
 */
export function seededVectors(seed: number, dims: number, tagCount = 40) {
  const rand = prng(seed);
  /** past 32 tags some rows have a tag without a bit, checked by name */
  const tags = Array.from({ length: tagCount }, (_, i) => `t${i}`);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  /** `nz` dims drawn at random (sparse, as the hashing embedder's); nz ≥ dims: every dim (dense, as a neural embedder's) */
  const vector = (nz: number): Float32Array => {
    const v = new Float32Array(dims);
    for (let i = 0; i < nz; i++) v[nz >= dims ? i : Math.floor(rand() * dims)] += rand() * 2 - 1;
    return v;
  };
  /** `count` queries, every fourth dense, each seeing about `tagShare` of the tags (and one no row has), 1…maxN hits */
  const queries = (count: number, tagShare: number, maxN: number): CacheQuery[] =>
    Array.from({ length: count }, (_, q) => ({ v: vector(q % 4 === 0 ? dims : 4), tags: new Set([...tags, "unknown"].filter(() => rand() < tagShare)), n: 1 + Math.floor(rand() * maxN) }));
  return { rand, tags, pick, vector, queries };
}

/** Every query's answer. */
export const answers = (cache: ProjectVectorCache, queries: readonly CacheQuery[]) => queries.map((q) => cache.search(q.v, q.tags, q.n));

/**
 * What must hold of any answer against the rows the cache was given: as many hits as the visible rows allow, no id
 * twice, each hit exactly its row's fields with a visible tag and a finite score.
 */
export function holds(cache: ProjectVectorCache, live: Map<string, CachedRow>, queries: readonly CacheQuery[]): void {
  for (const q of queries) {
    const hits = cache.search(q.v, q.tags, q.n);
    const visible = [...live.values()].filter((r) => r.tags.some((t) => q.tags.has(t)));
    expect(hits.length).toBe(Math.min(q.n, visible.length));
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
    for (const h of hits) {
      const { score, ...row } = h;
      expect(row).toEqual(live.get(h.id)!);
      expect(h.tags.some((t) => q.tags.has(t))).toBe(true);
      expect(Number.isFinite(score)).toBe(true);
    }
  }
}
