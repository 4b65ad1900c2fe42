import type { Generation } from "./generation.ts";
import { loadProjectCache } from "./loadProjectCache.ts";
import type { CacheOptions, ProjectVectorCache } from "./ProjectVectorCache.ts";

/**
 * The projects' vector caches of each generation: loaded lazily (at a project's
 * first search, or by the warm job at boot while the budget allows), one load
 * at a time per project, and evicted least-recently-searched first once their
 * memory passes the `vectorCacheMb` budget. An evicted project is loaded again
 * at its next search (~0.5 s at 100k chunks): a studio hosting more worlds than
 * memory holds pays that once per return, instead of the box running out.
 */
export class ProjectCaches {
  private readonly loads = new Map<string, Promise<ProjectVectorCache>>();
  private clock = 0;

  /** budgetBytes 0: no budget, nothing is evicted */
  constructor(
    readonly budgetBytes: number,
    private readonly cacheOptions: CacheOptions = {},
  ) {}

  async get(g: Generation, projectId: string): Promise<ProjectVectorCache> {
    const have = g.vectorCache.get(projectId);
    if (have) {
      have.usedAt = ++this.clock;
      return have;
    }
    const key = `${g.gen}\u0000${projectId}`;
    let loading = this.loads.get(key);
    if (!loading) {
      loading = loadProjectCache(g, projectId, this.cacheOptions).finally(() => this.loads.delete(key));
      this.loads.set(key, loading);
    }
    const cache = await loading;
    cache.usedAt = ++this.clock;
    this.enforce(g, cache);
    return cache;
  }

  /** Memory the generation's caches hold (their own estimate). */
  bytes(g: Generation): number {
    let total = 0;
    for (const c of g.vectorCache.values()) total += c.bytes;
    return total;
  }

  /**
   * Evicts least recently searched caches until the budget holds; `keep` (the
   * one a search is about to use) stays even when it alone is over the budget.
   */
  enforce(g: Generation, keep?: ProjectVectorCache): void {
    if (this.budgetBytes <= 0) return;
    let total = this.bytes(g);
    while (total > this.budgetBytes) {
      let victim: [string, ProjectVectorCache] | null = null;
      for (const e of g.vectorCache) if (e[1] !== keep && (!victim || e[1].usedAt < victim[1].usedAt)) victim = e;
      if (!victim) return;
      g.vectorCache.delete(victim[0]);
      victim[1].stop();
      total -= victim[1].bytes;
    }
  }

  /** Loads projects ahead of their first search, in order, while they fit the budget; the rows loaded. */
  async warm(g: Generation, projectIds: string[]): Promise<number> {
    let rows = 0;
    for (const id of projectIds) {
      if (this.budgetBytes > 0 && !g.vectorCache.has(id) && this.bytes(g) >= this.budgetBytes) break;
      rows += (await this.get(g, id)).size;
    }
    return rows;
  }
}
