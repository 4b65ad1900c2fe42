import { denseCodes, normalised, prepareQuery, quantise, rowCount, scoreRow, type TopN, visible } from "./cacheBlocks.ts";
import type { DocumentBlock, RowMeta } from "./cacheBlocks.ts";
import { blockOfOwn, blocksFromSnapshot, blocksFromWrites } from "./blocksFrom.ts";
import { ColumnCompaction } from "./columnCompaction.ts";
import { SearchTop } from "./searchTop.ts";
import type { CacheOptions, CachedRow, VectorHit } from "./cacheOptions.ts";
import { DEFAULT_INDEX_MIN_ROWS, DEFAULT_RESCORE, probeShareFor } from "./cacheOptions.ts";
import type { SnapshotDoc } from "./headerRows.ts";
import { IvfIndex, type IvfParts } from "./IvfIndex.ts";
import { COLUMN_MIN_ROWS } from "./columnScan.ts";
import { ColumnCopy } from "./columnCopy.ts";
import { BuildTurns } from "./buildTurns.ts";
import { BuildFailures } from "./buildFailures.ts";
import { OwnVectors, type FullVectors, type RowsAt } from "./fullVectors.ts";

export { DEFAULT_INDEX_MIN_ROWS, DEFAULT_PROBE_ROWS, DEFAULT_PROBE_SHARE, DEFAULT_RESCORE, probeShareFor, type CacheOptions, type CachedRow, type VectorHit } from "./cacheOptions.ts";
export type { RowMeta } from "./cacheBlocks.ts";

const TAG_BITS = 32;

/**
 * One project's chunk vectors in memory, for the vector half of hybrid
 * search. LanceDB stays the store of record; this is a read cache that the
 * VectorStore keeps in step with every write it makes (the server process is
 * the only writer). Why in memory: a filtered brute-force scan in LanceDB
 * costs ~25 ms at 10k chunks on 2 cores (decoding the Lance format
 * dominates), while a dot product over contiguous typed arrays takes a few ms.
 *
 * Why int8 and no text: a 100k-chunk project held float32 vectors and whole
 * rows (text included) at ~1.7 KB a chunk; int8 codes with a per-row scale,
 * and the rest of a row in columns shared by the documents restored
 * together (rowColumns.ts), hold ~0.47 KB, and a sparse project's column copy takes
 * its codes over at ~0.32 KB (columnCopy.ts), so ten big projects fit one
 * box. The ranking loses almost
 * nothing (symmetric per-row scaling of a unit vector errs by < 0.4 % of a
 * coordinate; bench/scale-retrieval.ts measures recall against float32), and
 * the few hits a turn keeps get their text from SQLite, the source of truth.
 * What int8 does lose (two rows closer than its error swap places) the search
 * wins back by re-scoring its top candidates with float32 vectors, which live
 * in the project's snapshot file, read a row at a time, not in the heap (fullVectors.ts).
 */
export class ProjectVectorCache {
  private readonly docs = new Map<string, DocumentBlock>();
  private readonly tagBit = new Map<string, number>();
  private count = 0;
  private byteCount = 0;
  /** changed since it was loaded or last saved as a snapshot file */
  dirty = false;
  /** when it was last searched, on the ProjectCaches clock (least recently used is evicted first) */
  usedAt = 0;

  /** the approximate index, once built (projects of indexMinRows rows and more) */
  private ivf: IvfIndex | null = null;
  private building: Promise<void> | null = null;
  /** the build's pauses, which a search ends early (buildTurns.ts: back-to-back requests never turn the loop) */
  private readonly turns = new BuildTurns();
  /** while an index builds: documents written since its snapshot, listed once it is ready */
  private pendingAdds: Set<DocumentBlock> | null = null;
  private trainedRows = 0;
  /** the sparse queries' exact scan, column by column, built in the background once a big project meets one */
  private readonly columns: ColumnCopy;
  private stopped = false;
  /** set while a snapshot's documents are put back: the index comes from the file, or is trained once after */
  private holdBuild = false;
  /** called when a new index swaps in (its owner saves the index part, so a restart finds the index there) */
  onIndexReady: (() => void) | null = null;
  /** background builds that threw: logged once, held back a while (buildFailures.ts) */
  private readonly failures: BuildFailures;
  /** takes deleted documents' rows out of the columns they shared, in the background (columnCompaction.ts) */
  readonly compaction: ColumnCompaction;

  constructor(
    readonly dims: number,
    readonly projectId: string,
    readonly opts: CacheOptions = {},
  ) {
    this.failures = new BuildFailures(projectId, opts.buildRetryMs);
    // once a copy holds a block's rows, the block's own int8 codes go: the budget no longer counts them
    this.columns = new ColumnCopy(dims, opts.columnSliceRows, {
      freed: (bytes) => (this.byteCount -= bytes),
      built: () => this.failures.succeeded("column copy"),
      failed: (e) => this.failures.failed("column copy", e),
    });
    const kind = "column compaction";
    this.compaction = new ColumnCompaction(dims, { blocks: () => this.docs.values(), bytes: (d) => (this.byteCount += d), mayStart: () => this.failures.mayStart(kind), succeeded: () => this.failures.succeeded(kind), failed: (e) => this.failures.failed(kind, e) }, opts.compactSliceRows);
  }

  /** "exact" below the index threshold, "building" while the index is trained in the background, "indexed" once it answers. */
  get mode(): "exact" | "building" | "indexed" {
    if (this.ivf && this.count >= this.indexMinRows) return "indexed";
    return this.building ? "building" : "exact";
  }

  /** "none" until a sparse search asks for the column copy, "building" while it is copied in the background, then "ready". */
  get columnState(): "none" | "building" | "ready" {
    return this.columns.state;
  }

  /** Resolves when no background build (the index, the column copy, a compaction) is running (tests and benches wait for it). */
  async indexIdle(): Promise<void> {
    while (this.building) await this.building;
    await this.columns.idle();
    await this.compaction.idle();
  }

  /** An evicted cache stops any build it has running. */
  stop(): void {
    this.stopped = true;
    this.columns.stop();
    this.compaction.stop();
  }

  private get indexMinRows(): number {
    return this.opts.indexMinRows ?? DEFAULT_INDEX_MIN_ROWS;
  }

  get size(): number {
    return this.count;
  }

  /** Memory this cache holds, estimated from its arrays and strings (what the vectorCacheMb budget counts). */
  get bytes(): number {
    return this.byteCount + (this.ivf?.bytes ?? 0) + this.columns.bytes;
  }

  setDocument(documentId: string, rows: CachedRow[], vectors: Float32Array[]): void {
    this.setDocuments([{ documentId, rows, vectors }]);
  }

  /**
   * Documents written (or loaded from LanceDB), each replacing any of the same id, in their order: their rows in one
   * set of columns (rowColumns.ts), their codes and float32 vectors in one array each.
   */
  setDocuments(docs: readonly { documentId: string; rows: CachedRow[]; vectors: Float32Array[] }[]): void {
    for (const d of docs) this.deleteDocument(d.documentId);
    const live = docs.filter((d) => d.rows.length > 0);
    if (live.length === 0) return;
    this.dirty = true;
    const dims = this.dims;
    if (this.opts.rowBits === 4) {
      // 4-bit rows are decided per document (cacheBlocks.ts DocumentBlock.packed): columns of their own
      for (const { documentId, rows, vectors } of live) {
        const n = rows.length;
        const codes = new Int8Array(n * dims);
        const scales = new Float32Array(n);
        const full = this.rescore > 0 ? new Float32Array(n * dims) : null;
        for (let i = 0; i < n; i++) {
          scales[i] = quantise(vectors[i], dims, codes, i * dims);
          if (full) full.set(normalised(vectors[i], dims), i * dims);
        }
        const meta: RowMeta = {
          ids: rows.map((r) => r.id),
          documentName: rows.map((r) => r.documentName),
          locationId: rows.map((r) => r.locationId),
          chunkIndex: Int32Array.from(rows, (r) => r.chunkIndex),
          tags: rows.map((r) => r.tags),
        };
        this.place(documentId, meta, codes, scales, full && new OwnVectors(full, dims), 0);
      }
      return;
    }
    for (const block of blocksFromWrites(live, dims, this.rescore > 0, (t) => this.bitOf(t, true))) this.put(block);
  }

  /** One document's rows with codes of its own and float32 rows read from `full` (its row r at r), replacing any of the same id. */
  restoreDocument(documentId: string, meta: RowMeta, codes: Int8Array, scales: Float32Array, full: FullVectors | null, packed?: boolean): void {
    this.deleteDocument(documentId);
    if (scales.length > 0) this.place(documentId, meta, codes, scales, this.rescore > 0 ? full : null, 0, packed);
  }

  /**
   * Documents as a snapshot file (or files: a rows' file and its tail's segments) holds them, each replacing any
   * of the same id, in their order: their rows in one set of columns (rowColumns.ts), their codes in one array
   * (the file's own when they are all of its rows, in order), their float32 rows read from the file.
   */
  restoreDocuments(docs: readonly SnapshotDoc[]): void {
    for (const d of docs) this.deleteDocument(d.documentId);
    const live = docs.filter((d) => d.n > 0);
    if (live.length === 0) return;
    const dims = this.dims;
    const withFull = this.rescore > 0;
    if (this.opts.rowBits === 4) {
      // 4-bit rows are decided per document (cacheBlocks.ts DocumentBlock.packed): columns of their own
      for (const d of live) {
        const f = d.src;
        const s = f.strings;
        const rowsOf = <T>(g: (i: number) => T) => Array.from({ length: d.n }, (_, r) => g(d.at + r));
        const meta: RowMeta = { ids: rowsOf((i) => f.id(i)), documentName: rowsOf((i) => s[f.name[i]]), locationId: rowsOf((i) => (f.loc[i] < 0 ? null : s[f.loc[i]])), chunkIndex: Int32Array.from(rowsOf((i) => f.ci[i])), tags: rowsOf((i) => f.tags(i).map((t) => s[t])) };
        const codes = f.codes.subarray(d.at * dims, (d.at + d.n) * dims);
        this.place(d.documentId, meta, codes, f.scales.slice(d.at, d.at + d.n), withFull ? f.full : null, d.at, d.packed);
      }
      return;
    }
    for (const block of blocksFromSnapshot(live, dims, withFull, (t) => this.bitOf(t, true))) this.put(block);
  }

  /** Every live document block, in one consistent state (the blocks themselves never change once placed). */
  blocks(): DocumentBlock[] {
    return [...this.docs.values()];
  }

  /** Puts a snapshot's documents back (`fill`) without starting an index build on the way; then `restored`. */
  restoring(fill: () => void): void {
    this.holdBuild = true;
    try {
      fill();
    } finally {
      this.holdBuild = false;
    }
  }

  /** After `restoring`: the file's index, when it had a sound one, else a build; the column copy if it was in use. */
  restored(index: { parts: IvfParts; trainedRows: number } | null, columns: boolean): void {
    if (index) {
      this.ivf = IvfIndex.fromParts(this.dims, index.parts, this.codesMoved);
      this.trainedRows = index.trainedRows;
    }
    this.maybeBuild();
    if (columns && this.count >= (this.opts.columnMinRows ?? COLUMN_MIN_ROWS)) this.wantColumns();
  }

  /** What a snapshot saves beside the rows: the index as it stands (lists copied), and whether columns are in use. */
  extras(): { index: { parts: IvfParts; trainedRows: number } | null; columns: boolean } {
    return { index: this.ivf ? { parts: this.ivf.parts(), trainedRows: this.trainedRows } : null, columns: this.columns.state !== "none" };
  }

  /** After a snapshot was written: rows whose vectors it now holds drop their own copies for its rows. */
  adoptSnapshotRows(views: Map<DocumentBlock, RowsAt>): void {
    for (const [block, view] of views) {
      if (block.dead || !block.full?.owned) continue;
      // its own rows' share of an array it may share with the documents written with it
      const own = block.n * this.dims * 4;
      block.full = view.full;
      block.fullAt = view.at;
      block.bytes -= own;
      this.byteCount -= own;
    }
  }

  private get rescore(): number {
    return this.opts.rescore ?? DEFAULT_RESCORE;
  }

  /**
   * A document in columns of its own (a write, or a 4-bit row's restore); its row r's float32 vector is `full`'s row
   * `fullAt` + r. `packed`: what the snapshot file says of the rows (a file written before says nothing: decided from
   * the codes).
   */
  private place(documentId: string, meta: RowMeta, codes: Int8Array, scales: Float32Array, full: FullVectors | null, fullAt: number, packedBefore?: boolean): void {
    // dense rows that float32 re-scores keep 4-bit codes (cacheBlocks.ts DocumentBlock.packed says why); rows a
    // file says were 4-bit stay so (their codes made back from nibbles may no longer look dense)
    const packed = this.opts.rowBits === 4 && full !== null && this.rescore > 0 && this.dims % 2 === 0 && (packedBefore ?? denseCodes(codes, scales.length, this.dims));
    this.put(blockOfOwn(documentId, meta, codes, scales, full, fullAt, packed, this.dims, (t) => this.bitOf(t, true)));
  }

  private put(block: DocumentBlock): void {
    const documentId = block.documentId;
    this.docs.set(documentId, block);
    this.count += block.n;
    this.byteCount += block.bytes;
    this.ivf?.add(block);
    this.pendingAdds?.add(block);
    this.columns.placed(block);
    this.maybeBuild();
  }

  deleteDocument(documentId: string): void {
    const old = this.docs.get(documentId);
    if (!old) return;
    this.count -= rowCount(old);
    this.byteCount -= old.bytes;
    this.docs.delete(documentId);
    old.dead = true; // an index, or a build's snapshot, may still list its rows
    this.compaction.died(old);
    old.detach();
    this.dirty = true;
    this.ivf?.remove(old);
    this.pendingAdds?.delete(old);
    this.columns.deleted(old);
  }

  /**
   * The n rows most similar to `query` among those whose tags meet `tags` (and
   * not of an `exclude`d document), best first: an exact scan, or past the
   * threshold the index (approximate ranking, exact filtering; never fewer
   * hits than the visible rows allow).
   */
  search(query: Float32Array, tags: ReadonlySet<string>, n: number, exclude?: (documentId: string) => boolean): VectorHit[] {
    if (!(n > 0)) return [];
    let want = 0;
    for (const t of tags) want |= this.bitOf(t, false) ?? 0;
    const p = prepareQuery(query, this.dims, want, tags, exclude);
    // The int8 ranking keeps rescore × n candidates, which their float32 vectors then rank exactly: the int8
    // error only decides which rows reach the candidates, not their order (bench/scale-retrieval.ts: recall).
    const best = this.top.candidates(this.rescore > 0 ? n * this.rescore : n);
    // A sparse query (the hashing embedder's) costs only its non-zero dims per row, so the exact scan stays
    // cheap, and the lists serve it poorly (recall@4 0.66–0.86 at 5–20 % of the lists, bench/scale-retrieval.ts):
    // only a dense query (a neural embedder's, 384 multiplies a row) goes through the index.
    if (this.mode === "indexed" && !p.sparse) this.ivf!.search(p, best, this.opts.probeShare ?? probeShareFor(this.count, this.opts.probeRows));
    else if (!this.columnScan(p, best)) {
      for (const doc of this.docs.values()) {
        if (exclude?.(doc.documentId)) continue;
        for (let r = 0; r < doc.n; r++) if (visible(doc, r, p)) best.offer(scoreRow(doc, r, p, this.dims), doc, r);
      }
    }
    if (this.building) this.turns.nudge();
    else if (!this.ivf) this.maybeBuild(); // one that failed is tried again once its wait is over, writes or not
    this.compaction.nudge();
    return this.top.hits(p, this.rescore > 0, n, this.projectId);
  }

  private readonly top = new SearchTop();

  /** A big project's sparse query through the column copy (asking for one, or a fresh one, as needed); false: scan the rows. */
  private columnScan(p: ReturnType<typeof prepareQuery>, best: TopN): boolean {
    // its 4-bit scores only pick candidates: without float32 re-scoring the rows' int8 scan ranks
    if (!p.sparse || this.rescore === 0 || this.count < (this.opts.columnMinRows ?? COLUMN_MIN_ROWS)) return false;
    this.wantColumns();
    return this.columns.scan(p, best, (doc, r) => scoreRow(doc, r, p, this.dims));
  }

  /** Asks for the column copy, unless its last build failed a short while ago (buildFailures.ts). */
  private wantColumns(): void {
    if (this.failures.mayStart("column copy")) this.columns.want(() => this.blocks());
  }

  /**
   * Starts an index build in the background once the project reaches the
   * threshold, and a rebuild once it has doubled since the last training (the
   * centroids then describe too little of it). The exact scan answers meanwhile.
   */
  private maybeBuild(): void {
    const min = this.indexMinRows;
    if (min <= 0 || this.count < min || this.building || this.stopped || this.holdBuild) return;
    if (this.ivf && this.count <= 2 * this.trainedRows) return;
    if (!this.failures.mayStart("index build")) return;
    const pending = new Set<DocumentBlock>();
    const run = async () => {
      // its first step after the current synchronous writes (a cold load sets every document in one go)
      const at = { snapshot: [] as DocumentBlock[], rows: 0 };
      const index = await this.turns.drive(this.indexSteps(pending, at), () => this.stopped);
      // synchronous from here: no write can slip between catching up and swapping in
      for (const b of pending) if (!b.dead) index.add(b);
      for (const b of at.snapshot) if (b.dead) index.remove(b);
      this.ivf = index;
      this.trainedRows = at.rows;
      this.failures.succeeded("index build");
      this.onIndexReady?.(); // the rows are unchanged: only the index part is saved again
    };
    this.building = run()
      // an abandoned or failed build leaves the exact scan (or the previous index) answering; a failure is told
      .catch((e) => {
        if (!this.stopped) this.failures.failed("index build", e);
      })
      .finally(() => {
        this.pendingAdds = null;
        this.building = null;
      });
  }

  /** A build's steps: the live blocks of its first step's moment, then the index trained on them. */
  private *indexSteps(pending: Set<DocumentBlock>, at: { snapshot: DocumentBlock[]; rows: number }): Generator<void, IvfIndex> {
    this.pendingAdds = pending;
    at.snapshot = [...this.docs.values()];
    at.rows = this.count;
    return yield* IvfIndex.steps(at.snapshot, this.dims, at.rows, undefined, undefined, this.codesMoved);
  }

  /** The index took over blocks' int8 codes (it keeps dense rows in list order: ivfLists.ts): they left the blocks' count. */
  private readonly codesMoved = (bytes: number) => {
    this.byteCount -= bytes;
  };

  /** The bit of a tag; a tag past the 32nd gets none (its rows are then checked by name). */
  private bitOf(tag: string, assign: boolean): number | null {
    const have = this.tagBit.get(tag);
    if (have !== undefined) return have;
    if (!assign || this.tagBit.size >= TAG_BITS) return null;
    const bit = (1 << this.tagBit.size) >>> 0;
    this.tagBit.set(tag, bit);
    return bit;
  }
}

