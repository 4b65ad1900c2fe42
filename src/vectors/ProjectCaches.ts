import { commitSnapshot, dropSnapshot, dropSnapshotFolder, snapshotRows, snapshotPath, writeSnapshotTmp } from "./cacheSnapshot.ts";
import { appendSegment, dropRowsFiles, holdRows, releaseRows, truncateTail } from "./rowsTail.ts";
import { PART_LAG_ROWS, planTail, TAIL_SHARE, type TailPlan } from "./tailPlan.ts";
import type { Generation } from "./generation.ts";
import { dropIndexPart, indexPartPath, writeIndexPartTmp } from "./indexPart.ts";
import { loadProjectCache, type RowsOnDisk } from "./loadProjectCache.ts";
import { encodeIndex } from "./ivfSnapshot.ts";
import type { CacheOptions, ProjectVectorCache } from "./ProjectVectorCache.ts";

/** What of a loaded cache is on disk: its rows' files (null when none holds rows of it), and which index is saved. */
interface OnDisk {
  rows: RowsOnDisk | null;
  /** the files hold the cache's rows as they are (false from a write until the save after it) */
  current: boolean;
  /** bumped at each index swap; the index part holds `savedIndex` */
  index: number;
  savedIndex: number;
}

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
 * close; set aside before every write to its project, and appended to (a
 * tail: rowsTail.ts) by the save after it while the change is small. A load
 * tries it first.
 * Its index is a part of its own (indexPart.ts): a newly trained index writes
 * that part alone while the rows' file on disk still holds the cache's rows;
 * the rows' file is written only when rows changed (with the index part after
 * it), never for an index.
 */
export class ProjectCaches {
  private readonly loads = new Map<string, Promise<ProjectVectorCache>>();
  private clock = 0;
  /** per generation and project, bumped by every write: a snapshot written across a write is not kept */
  private readonly epochs = new Map<string, number>();
  private readonly saving = new Set<Promise<void>>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly disk = new WeakMap<ProjectVectorCache, OnDisk>();
  /** loads answered by a snapshot file and by LanceDB (tests and benches tell the two paths apart by them) */
  readonly loadsFrom = { snapshot: 0, lance: 0 };
  /** @internal test hook: awaited between writing a snapshot and keeping it */
  beforeCommit: (() => Promise<void>) | null = null;
  /** @internal test hook: called before each step that changes the files of a save (a crash could come there) */
  onStep: ((step: string) => void) | null = null;
  /** @internal test hook: awaited by a write to the chunks once it has set the files aside, and once LanceDB has its commits */
  onWriteStep: ((step: "set aside" | "committed") => Promise<void>) | null = null;
  /** the share of the rows a tail may reach before a save writes a new rows' file (tailPlan.ts); 0: never a tail */
  tailShare = TAIL_SHARE;
  /** rows the segments after the index part's view may hold before a save writes the part again (tailPlan.ts) */
  partLagRows = PART_LAG_ROWS;

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
        .then(({ cache, fromSnapshot, onDisk }) => {
          this.loadsFrom[fromSnapshot ? "snapshot" : "lance"]++;
          const disk: OnDisk = { rows: onDisk ?? null, current: fromSnapshot, index: 0, savedIndex: 0 };
          this.disk.set(cache, disk);
          // a newly trained index is saved (its part alone when the rows' file is current), so the next start does
          // not train it again; a save running meanwhile goes on: its rows are as good, this one follows it
          cache.onIndexReady = () => {
            disk.index++;
            this.save(g, cache, "index");
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
   * Called under the chunk gate's write side before a write to the project
   * commits, and again once its cache has the write: a save running across the
   * write is dropped (the epoch it read under the gate's read side is older),
   * and the rows' file is set aside until the next save appends the change to
   * its tail (a load meanwhile, after a crash, goes to LanceDB), or deleted with
   * its tail and index part when no loaded cache knows what it holds.
   */
  invalidate(g: Generation, projectId: string): void {
    this.bump(g, projectId);
    const cache = g.vectorCache.get(projectId);
    const disk = cache && this.disk.get(cache);
    if (disk) disk.current = false;
    if (this.dir === undefined) return;
    const path = snapshotPath(this.dir, g.gen, projectId);
    if (disk?.rows && this.tailShare > 0) return holdRows(path);
    if (disk) disk.rows = null;
    dropRowsFiles(path);
  }

  /** A trained index not yet in an index part. */
  private indexUnsaved(cache: ProjectVectorCache): boolean {
    const disk = this.disk.get(cache);
    return disk !== undefined && disk.index !== disk.savedIndex;
  }

  /** Something of the cache not on disk: rows changed, files set aside by a write, or an index unsaved. */
  private unsaved(cache: ProjectVectorCache): boolean {
    return cache.dirty || this.indexUnsaved(cache) || this.disk.get(cache)?.current === false;
  }

  /** The epoch a save checks against: now for a loaded cache (it has every write so far), when asked for an evicted one. */
  private epochOf(g: Generation, cache: ProjectVectorCache, asked: number): number {
    return g.vectorCache.get(cache.projectId) === cache ? (this.epochs.get(`${g.gen}\u0000${cache.projectId}`) ?? 0) : asked;
  }

  private bump(g: Generation, projectId: string): void {
    const key = `${g.gen}\u0000${projectId}`;
    this.epochs.set(key, (this.epochs.get(key) ?? 0) + 1);
  }

  /** Writes the cache's snapshot in the background (a no-op without a folder); "index": the index part only. */
  save(g: Generation, cache: ProjectVectorCache, what: "rows" | "index" = "rows"): void {
    const dir = this.dir;
    if (dir === undefined || !g.embedder) return;
    const key = `${g.gen}\u0000${cache.projectId}`;
    // one save of a project at a time: a second waits for the first, then writes only if there is still news
    const before = this.running.get(key) ?? Promise.resolve();
    // an evicted cache gets no more writes: one landing after this call, even before the save begins, drops it
    const asked = this.epochs.get(key) ?? 0;
    const run = before
      .then(() => this.write(g, cache, dir, what, asked))
      .catch((e) => console.error(`lorehold: vector cache snapshot of ${cache.projectId} not written: ${e}`));
    this.running.set(key, run);
    this.saving.add(run);
    void run.finally(() => {
      this.saving.delete(run);
      if (this.running.get(key) === run) this.running.delete(key);
    });
  }

  /**
   * The rule: the rows' file is written when rows changed since it was (after a load from LanceDB, at eviction, at
   * close), never because an index was trained: a new index writes its part alone over the rows' file on disk, or
   * waits for the rows' next write when that file is gone (a write deleted it). An older file without a stamp,
   * whose rows are unchanged, is written again once so its index can have a part.
   */
  private write(g: Generation, cache: ProjectVectorCache, dir: string, what: "rows" | "index", asked: number): Promise<void> | undefined {
    const disk = this.disk.get(cache);
    if (what === "rows" && (cache.dirty || disk?.current === false)) return this.writeRows(g, cache, dir, asked);
    if (!this.indexUnsaved(cache)) return;
    if (disk!.rows && disk!.current) return this.writeIndex(g, cache, dir, asked);
    if (!cache.dirty) return this.writeRows(g, cache, dir, asked);
  }

  /**
   * The rows: a segment appended to the tail while the change is small (tailPlan.ts), else a new rows' file (a new
   * stamp); the index part after either, naming the rows' view it lists.
   */
  private async writeRows(g: Generation, cache: ProjectVectorCache, dir: string, asked: number): Promise<void> {
    const key = `${g.gen}\u0000${cache.projectId}`;
    const path = snapshotPath(dir, g.gen, cache.projectId);
    const disk = this.disk.get(cache);
    // the block list under the gate: no commit is half-applied to it (and the blocks themselves never change)
    const [epoch, blocks, extras, indexGen, onDisk] = await g.chunkGate.read(async () => [this.epochOf(g, cache, asked), cache.blocks(), cache.extras(), disk?.index ?? 0, disk?.rows ?? null] as const);
    const plan = disk && planTail(onDisk, blocks, this.tailShare);
    if (disk && onDisk && plan) {
      try {
        return await this.appendRows(g, cache, path, { key, epoch, extras, indexGen, onDisk, plan, disk });
      } catch (e) {
        // the tail cannot take it (its files gone or cut): a new rows' file, which drops what is left of them
        disk.rows = null;
        console.error(`lorehold: vector cache tail of ${cache.projectId} not appended, the rows' file is written whole: ${e}`);
      }
    }
    const index = extras.index && (await encodeIndex(extras.index.parts, extras.index.trainedRows, blocks, () => Bun.sleep(0)));
    const stamp = crypto.randomUUID();
    const tmp = await writeSnapshotTmp(path, { stamp, gen: g.gen, embedderId: g.embedderId, dims: g.dims, projectId: cache.projectId }, blocks, { index: null, columns: extras.columns });
    let rows = 0;
    for (const b of blocks) rows += b.n;
    const partTmp = index ? await writeIndexPartTmp(path, { stamp, rows, dims: g.dims }, index, extras.columns) : null;
    await this.beforeCommit?.();
    // synchronous from the check to the renames: a write's invalidate cannot slip between them
    if ((this.epochs.get(key) ?? 0) !== epoch) {
      if (partTmp) dropSnapshot(partTmp);
      return dropSnapshot(tmp);
    }
    // the old rows' file goes first (with it gone nothing left is read), then its tail, its part set aside or not
    this.onStep?.("drop");
    dropRowsFiles(path);
    this.onStep?.("rows");
    commitSnapshot(tmp, path);
    this.onStep?.("part");
    if (partTmp) commitSnapshot(partTmp, indexPartPath(path));
    cache.dirty = false;
    if (disk) {
      disk.rows = { stamp, blocks, base: { stamp, rows }, tail: { bytes: 0, rows: 0, segments: 0 }, partLag: 0 };
      disk.current = true;
      if (index) disk.savedIndex = indexGen;
    }
    cache.adoptSnapshotRows(snapshotRows(path, blocks));
  }

  /**
   * A segment appended to the tail, then the rows' file back in place (the last step: until then a load goes to
   * LanceDB, so a crash anywhere before leaves nothing half-applied). The index part on disk lists a view the tail
   * still holds, and a load applies the segments after it to the index (restoreRows.ts): it is written again (over
   * the view after the segment) for an index trained since it was, or once the segments after its view hold more
   * than `partLagRows` rows, and goes when the cache has no index.
   */
  private async appendRows(g: Generation, cache: ProjectVectorCache, path: string, s: { key: string; epoch: number; extras: ReturnType<ProjectVectorCache["extras"]>; indexGen: number; onDisk: RowsOnDisk; plan: TailPlan; disk: OnDisk }): Promise<void> {
    const { onDisk, plan, extras, disk } = s;
    let rows = 0;
    for (const b of plan.view) rows += b.n;
    const stamp = crypto.randomUUID();
    this.onStep?.("segment");
    const { end, views } = await appendSegment(path, onDisk.tail.bytes, { base: onDisk.base.stamp, prev: onDisk.stamp, stamp, rows, dims: g.dims, removed: plan.removed, ...(extras.columns ? { columns: true } : {}) }, plan.added);
    let lag = onDisk.partLag;
    for (const b of plan.added) lag += b.n;
    const partDue = disk.index !== disk.savedIndex || lag > this.partLagRows;
    const index = extras.index && partDue ? await encodeIndex(extras.index.parts, extras.index.trainedRows, plan.view, () => Bun.sleep(0)) : null;
    const partTmp = index ? await writeIndexPartTmp(path, { stamp, rows, dims: g.dims }, index, extras.columns) : null;
    await this.beforeCommit?.();
    // synchronous from the check to the renames: a write's invalidate cannot slip between them
    if ((this.epochs.get(s.key) ?? 0) !== s.epoch) {
      if (partTmp) dropSnapshot(partTmp);
      return truncateTail(path, onDisk.tail.bytes);
    }
    this.onStep?.("part");
    if (partTmp) commitSnapshot(partTmp, indexPartPath(path));
    else if (!extras.index) dropIndexPart(path);
    this.onStep?.("release");
    releaseRows(path);
    cache.dirty = false;
    disk.rows = { stamp, blocks: plan.view, base: onDisk.base, tail: { bytes: end, rows: plan.tailRows, segments: onDisk.tail.segments + 1 }, partLag: index ? 0 : lag };
    disk.current = true;
    if (index) disk.savedIndex = s.indexGen;
    cache.adoptSnapshotRows(views);
  }

  /** The index part alone, over the rows' file on disk (nothing when that file no longer holds the cache's rows). */
  private async writeIndex(g: Generation, cache: ProjectVectorCache, dir: string, asked: number): Promise<void> {
    const key = `${g.gen}\u0000${cache.projectId}`;
    const path = snapshotPath(dir, g.gen, cache.projectId);
    const disk = this.disk.get(cache)!;
    const [epoch, rows, extras, indexGen] = await g.chunkGate.read(async () => [this.epochOf(g, cache, asked), disk.rows, cache.extras(), disk.index] as const);
    // rows changed since their file was written: the index is saved with them, at eviction or close
    if (!rows || !disk.current || !extras.index) return;
    const index = await encodeIndex(extras.index.parts, extras.index.trainedRows, rows.blocks, () => Bun.sleep(0));
    if (!index) return;
    let count = 0;
    for (const b of rows.blocks) count += b.n;
    const tmp = await writeIndexPartTmp(path, { stamp: rows.stamp, rows: count, dims: g.dims }, index, extras.columns);
    await this.beforeCommit?.();
    if ((this.epochs.get(key) ?? 0) !== epoch || disk.rows !== rows || !disk.current) return dropSnapshot(tmp);
    commitSnapshot(tmp, indexPartPath(path));
    disk.savedIndex = indexGen;
    rows.partLag = 0;
  }

  /** Saves every changed cache of the generation and waits for all saves (at close). */
  async flush(g: Generation): Promise<void> {
    await this.idle();
    for (const c of g.vectorCache.values()) if (this.unsaved(c)) this.save(g, c);
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
      if (this.unsaved(victim[1])) this.save(g, victim[1]); // its next load then reads the file, not LanceDB
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
