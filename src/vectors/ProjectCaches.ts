import { commitSnapshot, dropSnapshot, dropSnapshotFolder, snapshotRows, snapshotPath, writeSnapshotTmp } from "./cacheSnapshot.ts";
import type { Generation } from "./generation.ts";
import { loadProjectCache } from "./loadProjectCache.ts";
import { encodeIndex } from "./ivfSnapshot.ts";
import type { CacheOptions, ProjectVectorCache } from "./ProjectVectorCache.ts";

/**
 * The projects' vector caches of each generation: loaded lazily (at a project's
 * first search, or by the warm job at boot while the budget allows), one load
 * at a time per project, and evicted least-recently-searched first once their
 * memory passes the `vectorCacheMb` budget. An evicted project is loaded again
 * at its next search: a studio hosting more worlds than memory holds pays that
 * once per return, instead of the box running out.
 *
 * With a folder, each cache is also kept as a snapshot file (cacheSnapshot.ts):
 * written after a load from LanceDB, when a changed cache is evicted and at
 * close; deleted before every write to its project. A load tries it first.
 */
export class ProjectCaches {
  private readonly loads = new Map<string, Promise<ProjectVectorCache>>();
  private clock = 0;
  /** per generation and project, bumped by every write: a snapshot written across a write is not kept */
  private readonly epochs = new Map<string, number>();
  private readonly saving = new Set<Promise<void>>();
  private readonly running = new Map<string, Promise<void>>();
  /** loads answered by a snapshot file and by LanceDB (tests and benches tell the two paths apart by them) */
  readonly loadsFrom = { snapshot: 0, lance: 0 };
  /** @internal test hook: awaited between writing a snapshot and keeping it */
  beforeCommit: (() => Promise<void>) | null = null;

  /** budgetBytes 0: no budget, nothing is evicted; dir: where snapshot files go (none without) */
  constructor(
    readonly budgetBytes: number,
    private readonly cacheOptions: CacheOptions = {},
    private readonly dir?: string,
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
      const path = this.dir === undefined ? undefined : snapshotPath(this.dir, g.gen, projectId);
      loading = loadProjectCache(g, projectId, this.cacheOptions, path)
        .then(({ cache, fromSnapshot }) => {
          this.loadsFrom[fromSnapshot ? "snapshot" : "lance"]++;
          // a newly trained index is saved with the rows, so the next start does not train it again
          // (a save running meanwhile is dropped, as across a write: its file would lack the index yet be kept clean)
          cache.onIndexReady = () => {
            this.bump(g, projectId);
            this.save(g, cache);
          };
          // in the background: awaited, a 100k-chunk load took ~3× longer (bench/scale-load.ts), its writes waiting
          // behind the index build that starts beside it. Until it ends, the float32 copies the load made (1.5 KB
          // a row) count against the budget, which may evict another project early: that one's next load then
          // reads its own snapshot file (a fraction of a second), so the trade favours the search waiting here.
          if (!fromSnapshot) this.save(g, cache);
          return cache;
        })
        .finally(() => this.loads.delete(key));
      this.loads.set(key, loading);
    }
    const cache = await loading;
    cache.usedAt = ++this.clock;
    this.enforce(g, cache);
    return cache;
  }

  /**
   * Called before a write to the project commits, and again once its cache has
   * the write: the snapshot goes, and a save running across the write is dropped.
   */
  invalidate(g: Generation, projectId: string): void {
    this.bump(g, projectId);
    if (this.dir !== undefined) dropSnapshot(snapshotPath(this.dir, g.gen, projectId));
  }

  private bump(g: Generation, projectId: string): void {
    const key = `${g.gen}\u0000${projectId}`;
    this.epochs.set(key, (this.epochs.get(key) ?? 0) + 1);
  }

  /** Writes the cache's snapshot in the background (a no-op without a folder). */
  save(g: Generation, cache: ProjectVectorCache): void {
    const dir = this.dir;
    if (dir === undefined || !g.embedder) return;
    const key = `${g.gen}\u0000${cache.projectId}`;
    // one save of a project at a time: a second waits for the first, then writes only if there is still news
    const before = this.running.get(key) ?? Promise.resolve();
    const run = before
      .then(() => (cache.dirty ? this.write(g, cache, dir) : undefined))
      .catch((e) => console.error(`lorehold: vector cache snapshot of ${cache.projectId} not written: ${e}`));
    this.running.set(key, run);
    this.saving.add(run);
    void run.finally(() => {
      this.saving.delete(run);
      if (this.running.get(key) === run) this.running.delete(key);
    });
  }

  private async write(g: Generation, cache: ProjectVectorCache, dir: string): Promise<void> {
    const key = `${g.gen}\u0000${cache.projectId}`;
    const path = snapshotPath(dir, g.gen, cache.projectId);
    // the block list under the gate: no commit is half-applied to it (and the blocks themselves never change)
    const [epoch, blocks, extras] = await g.chunkGate.read(async () => [this.epochs.get(key) ?? 0, cache.blocks(), cache.extras()] as const);
    const index = extras.index && (await encodeIndex(extras.index.parts, extras.index.trainedRows, blocks, () => Bun.sleep(0)));
    const tmp = await writeSnapshotTmp(path, { gen: g.gen, embedderId: g.embedderId, dims: g.dims, projectId: cache.projectId }, blocks, { index, columns: extras.columns });
    await this.beforeCommit?.();
    // synchronous from the check to the rename: a write's invalidate cannot slip between them
    if ((this.epochs.get(key) ?? 0) !== epoch) return dropSnapshot(tmp);
    commitSnapshot(tmp, path);
    cache.dirty = false;
    cache.adoptSnapshotRows(snapshotRows(path, blocks));
  }

  /** Saves every changed cache of the generation and waits for all saves (at close). */
  async flush(g: Generation): Promise<void> {
    await this.idle();
    for (const c of g.vectorCache.values()) if (c.dirty) this.save(g, c);
    await this.idle();
  }

  /** Resolves once no snapshot is being written. */
  async idle(): Promise<void> {
    while (this.saving.size) await Promise.all([...this.saving]);
  }

  /** Removes a dropped generation's snapshot files. */
  dropGeneration(g: Generation): void {
    if (this.dir !== undefined) dropSnapshotFolder(this.dir, g.gen);
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
      if (victim[1].dirty) this.save(g, victim[1]); // its next load then reads the file, not LanceDB
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
