import { normalised } from "./cacheBlocks.ts";
import type { MemoryRow } from "./rows.ts";

/** Memory rows cached across all groups of a generation, by default (~1.8 KB a row at 384 dims: ~90 MB). */
export const DEFAULT_MEMORY_CACHE_ROWS = 50_000;

interface Group {
  rows: MemoryRow[];
  /** rows × dims unit vectors */
  vectors: Float32Array;
}

/**
 * The memories of recently searched (project, mind, player) groups, with their
 * vectors, so a conversation's later turns rank its memories in memory instead
 * of through a LanceDB query (whose cost grows with the table: a project of 1M
 * memories, bench/scale-memories.ts). A group is read from LanceDB whole at its
 * first search (a player's memories with one mind: tens to hundreds of rows),
 * kept in step by every memory write afterwards, and evicted least recently
 * searched first past a row budget. The group key is exact, so the player
 * filter stays exact: a group holds no one else's rows.
 *
 * Consistency without a lock: every write bumps `epoch` and applies itself to
 * the loaded groups synchronously right after its commit; a group read from
 * LanceDB is kept only if no write's bump came while it was read.
 */
export class MemoryGroups {
  private readonly groups = new Map<string, Group>();
  private readonly groupOf = new Map<string, string>();
  private rowCount = 0;
  epoch = 0;

  constructor(
    readonly dims: number,
    readonly maxRows = DEFAULT_MEMORY_CACHE_ROWS,
  ) {}

  static key(projectId: string, entityMindId: string, playerId: string): string {
    return `${projectId}\u0000${entityMindId}\u0000${playerId}`;
  }

  get rows(): number {
    return this.rowCount;
  }

  has(key: string): boolean {
    return this.groups.has(key);
  }

  /** The group's k rows most similar to `query` (cosine), best first; null when the group is not loaded. */
  search(key: string, query: Float32Array, k: number): (MemoryRow & { score: number })[] | null {
    const g = this.groups.get(key);
    if (!g) return null;
    this.groups.delete(key); // most recently used last
    this.groups.set(key, g);
    const q = normalised(query, this.dims);
    const dims = this.dims;
    const scored = g.rows.map((row, i) => {
      let dot = 0;
      const base = i * dims;
      for (let d = 0; d < dims; d++) dot += q[d] * g.vectors[base + d];
      return { ...row, score: dot };
    });
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return scored.slice(0, k);
  }

  /** Ranks rows read from LanceDB that could not be installed (a write came meanwhile), as a loaded group would. */
  searchOnce(rows: MemoryRow[], vectors: ArrayLike<number>[], query: Float32Array, k: number): (MemoryRow & { score: number })[] {
    this.put("once", rows, vectors);
    return this.search("once", query, k)!;
  }

  /** Installs a group read from LanceDB, unless a write came while it was read (`since` is the epoch before the read). */
  install(key: string, rows: MemoryRow[], vectors: ArrayLike<number>[], since: number): void {
    if (since !== this.epoch || this.groups.has(key) || this.maxRows <= 0) return;
    this.put(key, rows, vectors);
  }

  /** After an upsert commits: rows of loaded groups are replaced or added; other groups load them when searched. */
  upserted(rows: MemoryRow[], vectors: ArrayLike<number>[] | null): void {
    this.epoch++;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      this.removeId(r.id); // wherever it was (an upsert could move an id to another group)
      const key = MemoryGroups.key(r.projectId, r.entityMindId, r.playerId);
      const g = this.groups.get(key);
      if (!g) continue;
      if (!vectors) {
        this.drop(key); // written without a vector: the group no longer matches what LanceDB searches
        continue;
      }
      const grown = new Float32Array(g.vectors.length + this.dims);
      grown.set(g.vectors);
      grown.set(normalised(vectors[i], this.dims), g.vectors.length);
      g.vectors = grown;
      g.rows.push(r);
      this.groupOf.set(r.id, key);
      this.rowCount++;
    }
    this.trim();
  }

  /** After a delete commits: the ids, or every group the filter covers. */
  deleted(filter: { projectId: string; playerId?: string; entityMindId?: string; ids?: string[] }): void {
    this.epoch++;
    if (filter.ids) {
      for (const id of filter.ids) {
        const key = this.groupOf.get(id);
        if (key?.startsWith(`${filter.projectId}\u0000`)) this.removeId(id);
      }
      return;
    }
    for (const key of [...this.groups.keys()]) {
      const [p, m, pl] = key.split("\u0000");
      if (p === filter.projectId && (filter.entityMindId === undefined || m === filter.entityMindId) && (filter.playerId === undefined || pl === filter.playerId)) this.drop(key);
    }
  }

  private put(key: string, rows: MemoryRow[], vectors: ArrayLike<number>[]): void {
    const flat = new Float32Array(rows.length * this.dims);
    rows.forEach((r, i) => {
      flat.set(normalised(vectors[i], this.dims), i * this.dims);
      this.groupOf.set(r.id, key);
    });
    this.groups.set(key, { rows: [...rows], vectors: flat });
    this.rowCount += rows.length;
    this.trim(key);
  }

  private removeId(id: string): void {
    const key = this.groupOf.get(id);
    if (key === undefined) return;
    this.groupOf.delete(id);
    const g = this.groups.get(key);
    const i = g ? g.rows.findIndex((r) => r.id === id) : -1;
    if (!g || i < 0) return;
    g.rows.splice(i, 1);
    const v = new Float32Array(g.vectors.length - this.dims);
    v.set(g.vectors.subarray(0, i * this.dims));
    v.set(g.vectors.subarray((i + 1) * this.dims), i * this.dims);
    g.vectors = v;
    this.rowCount--;
  }

  private drop(key: string): void {
    const g = this.groups.get(key);
    if (!g) return;
    for (const r of g.rows) this.groupOf.delete(r.id);
    this.groups.delete(key);
    this.rowCount -= g.rows.length;
  }

  /** Least recently searched groups go first; `keep` (just loaded) stays even alone over the budget. */
  private trim(keep?: string): void {
    for (const key of this.groups.keys()) {
      if (this.rowCount <= this.maxRows) return;
      if (key !== keep) this.drop(key);
    }
  }
}
