import { denseCodes, scoreRow, visible, type ColumnRows, type DocumentBlock, type PreparedQuery, type TopN } from "./cacheBlocks.ts";
import { codesDot } from "./ivfMath.ts";

/**
 * The IVF index's lists: which rows each list holds, 4 B a row.
 *
 * Each row is one uint32 entry: a slot (a run of up to 256 rows of one block, so a block of any size takes
 * ⌈rows / 256⌉ slots) in its high 24 bits, the row within the slot in its low 8. The lists are one array end to end
 * (`entries`, list c from starts[c] to starts[c + 1]); rows listed since the last compaction wait in small per-list
 * arrays (`more`) until enough pile up (or enough rows die) to compact again, in one O(rows) pass. Why: two JS array
 * slots a row (a block pointer and a row number, ~16 B) were a fifth of the index at 100k rows, and a search walking
 * one typed array reads it in order.
 *
 * 2^24 slots: ~16 million documents, past anything one process holds; more throws, and the build that met it leaves
 * the exact scan answering.
 *
 * The rows' int8 codes in list order. A compaction also moves the codes of dense int8 rows (a neural embedder's)
 * out of their blocks into one array in list order, with each row's scale and tag bits beside them, and the block
 * keeps none (its `home` is this store, which scores and reads its rows for whoever still asks a block: the exact
 * scan, a snapshot's save, the next training). Why: a search scans ~10,000 rows of the lists it probes, and with
 * each row's codes in its document's block that was ~10,000 reads from random places in ~40 MB of codes at 100k rows;
 * in list order a list is one run of memory, and the same scan took 0.4× the CPU (bench/ivf-recall.ts). The bytes
 * are the same codes moved, plus 12 B a row (scale, tag bits, where the row sits). Rows that are not dense int8
 * (the hashing embedder's sparse rows, 4-bit rows, rows listed since the last compaction) stay in their blocks and
 * are scanned there (`more`).
 */
export class IvfListStore implements ColumnRows {
  private starts: Uint32Array;
  private entries = new Uint32Array(0);
  private more: (number[] | null)[];
  private moreCount = 0;
  /** entries listed since the last compaction (the rest of `more` are rows that stay in their blocks) */
  private fresh = 0;
  /** per slot: its block and the block's row its first entry row stands for */
  private slotBlock: DocumentBlock[] = [];
  private slotBase = new Int32Array(64);
  /** per slot: where its rows start in `pos` */
  private slotRow = new Int32Array(64);
  private rowSpace = 0;
  /** the moved rows, entry by entry: codes (dims each), scale, tag bits; and per row (slotRow + row) its entry, or -1 */
  private codes = new Int8Array(0);
  private scales = new Float32Array(0);
  private bits = new Uint32Array(0);
  private pos = new Int32Array(0);
  /** some moved row has tags past the 32nd (checked by name, through its block) */
  private overflow = false;
  /** the query as float64, filled once a search (no allocation a query) */
  private readonly q: Float64Array;

  constructor(
    readonly k: number,
    readonly dims: number,
    /** told the bytes of codes moved out of live blocks (the cache's count of its blocks' bytes goes down by as much) */
    private readonly freed: (bytes: number) => void = () => {},
  ) {
    this.starts = new Uint32Array(k + 1);
    this.more = new Array<number[] | null>(k).fill(null);
    this.q = new Float64Array(dims);
  }

  /** Bytes: the entries, the waiting ones, the slot table, and the moved rows (their codes included). */
  get bytes(): number {
    return this.entries.byteLength + this.starts.byteLength + this.moreCount * 8 + this.slotBlock.length * 8 + this.slotBase.byteLength + this.slotRow.byteLength + this.rowBytes;
  }

  /** Bytes of the rows moved in (codes, scales, tag bits, positions): the blocks' own before. */
  get rowBytes(): number {
    return this.codes.byteLength + this.scales.byteLength + this.bits.byteLength + this.pos.byteLength;
  }

  /** The slots of a block newly listed: its first one (row r sits in slot first + (r >> 8), at r & 255). */
  slotsFor(block: DocumentBlock): number {
    const first = this.slotBlock.length;
    const n = Math.max(1, Math.ceil(block.n / SLOT_ROWS));
    if (first + n > MAX_SLOTS) throw new Error("index slots exhausted");
    if (this.slotBase.length < first + n) {
      const grow = (a: Int32Array) => {
        const grown = new Int32Array(Math.max(first + n, a.length * 2));
        grown.set(a);
        return grown;
      };
      this.slotBase = grow(this.slotBase);
      this.slotRow = grow(this.slotRow);
    }
    for (let i = 0; i < n; i++) {
      this.slotBlock.push(block);
      this.slotBase[first + i] = i * SLOT_ROWS;
      this.slotRow[first + i] = this.rowSpace + i * SLOT_ROWS;
    }
    this.rowSpace += block.n;
    return first;
  }

  /** Lists row r of the block whose first slot is `first` under list c (waiting until the next compaction). */
  push(c: number, first: number, r: number): void {
    const e = (((first + (r >> 8)) << 8) | (r & 255)) >>> 0;
    (this.more[c] ??= []).push(e);
    this.moreCount++;
    this.fresh++;
  }

  /**
   * Entries listed since the last compaction. Not all of `more`: a sparse project's rows all stay there, and counting
   * them would compact the lists on every write.
   */
  get waiting(): number {
    return this.fresh;
  }

  size(c: number): number {
    return this.starts[c + 1] - this.starts[c] + (this.more[c]?.length ?? 0);
  }

  /** Calls f with each entry of list c (its block and row), dead rows included. */
  each(c: number, f: (doc: DocumentBlock, row: number) => void): void {
    const { entries, slotBlock, slotBase } = this;
    for (let i = this.starts[c]; i < this.starts[c + 1]; i++) f(slotBlock[entries[i] >>> 8], slotBase[entries[i] >>> 8] + (entries[i] & 255));
    for (const e of this.more[c] ?? []) f(slotBlock[e >>> 8], slotBase[e >>> 8] + (e & 255));
  }

  /**
   * Rewrites the lists end to end without the rows of dead blocks and with the waiting entries in place (each list
   * keeps its order), the slot table without dead blocks' slots, and moves the codes of every dense int8 row in
   * (from its block, or from the store that held them: this one, or the index this one replaces). O(rows × dims):
   * after a training, and when a quarter of the rows died or an eighth waits.
   */
  compact(): void {
    const { k, dims, slotBlock, slotBase, entries, starts, more } = this;
    const remap = new Int32Array(slotBlock.length).fill(-1);
    const blocks: DocumentBlock[] = [];
    const bases = new Int32Array(Math.max(64, slotBlock.length));
    const rowsAt = new Int32Array(Math.max(64, slotBlock.length));
    let rowSpace = 0;
    for (let s = 0; s < slotBlock.length; s++) {
      const b = slotBlock[s];
      if (b.dead) continue;
      remap[s] = blocks.length;
      bases[blocks.length] = slotBase[s];
      // a block's slots are consecutive: its rows are too
      rowsAt[blocks.length] = slotBase[s] === 0 ? rowSpace : rowsAt[blocks.length - 1] + SLOT_ROWS;
      if (slotBase[s] === 0) rowSpace += b.n;
      blocks.push(b);
    }
    const movable = new Uint8Array(blocks.length);
    for (let s = 0; s < blocks.length; s++) movable[s] = this.movable(blocks[s]) ? 1 : 0;
    let moved = 0;
    let rest = 0;
    const count = (e: number) => {
      const s = remap[e >>> 8];
      if (s < 0) return;
      if (movable[s]) moved++;
      else rest++;
    };
    for (let c = 0; c < k; c++) {
      for (let i = starts[c]; i < starts[c + 1]; i++) count(entries[i]);
      for (const e of more[c] ?? []) count(e);
    }
    const out = new Uint32Array(moved);
    const outStarts = new Uint32Array(k + 1);
    const codes = new Int8Array(moved * dims);
    const scales = new Float32Array(moved);
    const bits = new Uint32Array(moved);
    const pos = new Int32Array(rowSpace).fill(-1);
    const outMore: (number[] | null)[] = new Array<number[] | null>(k).fill(null);
    let at = 0;
    let overflow = false;
    const put = (c: number, e: number) => {
      const s = remap[e >>> 8];
      if (s < 0) return;
      const ne = ((s << 8) | (e & 255)) >>> 0;
      if (!movable[s]) {
        (outMore[c] ??= []).push(ne);
        return;
      }
      const doc = blocks[s];
      const r = bases[s] + (e & 255);
      if (doc.codeArr !== null) codes.set(doc.codeArr.subarray((doc.codeAt + r) * dims, (doc.codeAt + r + 1) * dims), at * dims);
      else doc.homeCopy!.codesAt(doc.homeStart + r, codes, at * dims);
      const i = doc.at + r;
      scales[at] = doc.cols.scales[i];
      bits[at] = doc.cols.tagBits[i];
      if (doc.cols.overflow !== null && doc.cols.overflow[i] === 1) overflow = true;
      pos[rowsAt[s] + (e & 255)] = at;
      out[at++] = ne;
    };
    for (let c = 0; c < k; c++) {
      outStarts[c] = at;
      for (let i = starts[c]; i < starts[c + 1]; i++) put(c, entries[i]);
      for (const e of more[c] ?? []) put(c, e);
    }
    outStarts[k] = at;
    // every moved row copied (from wherever its codes were): now the blocks let theirs go and read from here
    let freed = 0;
    for (let s = 0; s < blocks.length; s++) {
      const doc = blocks[s];
      if (!movable[s] || bases[s] !== 0) continue;
      freed += doc.moveCodes(this, s * SLOT_ROWS);
    }
    this.entries = out;
    this.starts = outStarts;
    this.more = outMore;
    this.moreCount = rest;
    this.fresh = 0;
    this.slotBlock = blocks;
    this.slotBase = bases.slice(0, Math.max(64, blocks.length));
    this.slotRow = rowsAt.slice(0, Math.max(64, blocks.length));
    this.rowSpace = rowSpace;
    this.codes = codes;
    this.scales = scales;
    this.bits = bits;
    this.pos = pos;
    this.overflow = overflow;
    if (freed) this.freed(freed);
  }

  /** A block whose rows this store holds in list order: dense int8 rows, in their block or another index's store. */
  private movable(b: DocumentBlock): boolean {
    if (b.codeArr === null) return b.homeCopy instanceof IvfListStore;
    return !b.packed && denseCodes(b.codeArr.subarray(b.codeAt * this.dims), b.n, this.dims);
  }

  /** Row `i` of a block homed here (its home's start + its row): where its codes are. */
  private at(i: number): number {
    return this.pos[this.slotRow[i >>> 8] + (i & 255)];
  }

  scoreAt(i: number, p: PreparedQuery): number {
    const { codes, dims } = this;
    const base = this.at(i) * dims;
    let dot = 0;
    if (p.sparse) for (let j = 0; j < p.nzIdx.length; j++) dot += p.nzVal[j] * codes[base + p.nzIdx[j]];
    else for (let d = 0; d < dims; d++) dot += p.q[d] * codes[base + d];
    return dot * this.scales[this.at(i)];
  }

  valuesAt(i: number, out: Float32Array): void {
    const at = this.at(i);
    const s = this.scales[at];
    for (let d = 0; d < this.dims; d++) out[d] = this.codes[at * this.dims + d] * s;
  }

  codesAt(i: number, out: Int8Array, offset: number): void {
    const at = this.at(i);
    out.set(this.codes.subarray(at * this.dims, (at + 1) * this.dims), offset);
  }

  /** Readies a search's query (as float64: the inner loop then converts only the codes). */
  prepare(p: PreparedQuery): void {
    this.q.set(p.q);
  }

  /**
   * Offers list c's visible rows to `best`: the full scan's rule row by row (tag bits, tags past the 32nd by name,
   * excluded documents, dead blocks), the moved rows first, end to end, with the int8 dot product inline (four
   * accumulators, a float64 query: bench/ivf-dot.ts), then the rows scanned from their blocks. A row's block is
   * looked up only when its score would be kept. Returns the entries walked.
   */
  scan(c: number, p: PreparedQuery, best: TopN): number {
    const { entries, slotBlock, slotBase, codes, scales, bits, q, dims } = this;
    const want = p.want;
    const end = this.starts[c + 1];
    const tail = dims & 3;
    for (let i = this.starts[c]; i < end; i++) {
      if ((bits[i] & want) === 0 && !(this.overflow && visible(slotBlock[entries[i] >>> 8], slotBase[entries[i] >>> 8] + (entries[i] & 255), p))) continue;
      const base = i * dims;
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      let d = 0;
      for (; d < dims - tail; d += 4) {
        a0 += q[d] * codes[base + d];
        a1 += q[d + 1] * codes[base + d + 1];
        a2 += q[d + 2] * codes[base + d + 2];
        a3 += q[d + 3] * codes[base + d + 3];
      }
      for (; d < dims; d++) a0 += q[d] * codes[base + d];
      const score = (a0 + a1 + a2 + a3) * scales[i];
      if (!(score > best.worst)) continue;
      // only a row good enough to keep needs its block: dead (replaced or deleted since) and excluded ones are not kept
      const e = entries[i];
      const doc = slotBlock[e >>> 8];
      if (doc.dead || (p.exclude !== undefined && p.exclude(doc.documentId))) continue;
      best.offer(score, doc, slotBase[e >>> 8] + (e & 255));
    }
    const more = this.more[c];
    if (more)
      for (let j = 0; j < more.length; j++) {
        const e = more[j];
        offerRow(slotBlock[e >>> 8], slotBase[e >>> 8] + (e & 255), p, best, dims);
      }
    return end - this.starts[c] + (more?.length ?? 0);
  }
}

function offerRow(doc: DocumentBlock, r: number, p: PreparedQuery, best: TopN, dims: number): void {
  if (doc.dead) return;
  const cs = doc.cols;
  if ((cs.tagBits[doc.at + r] & p.want) === 0 && (cs.overflow === null || !visible(doc, r, p))) return;
  if (p.exclude !== undefined && p.exclude(doc.documentId)) return;
  const codes = doc.codeArr;
  let score: number;
  if (codes !== null && !doc.packed && !p.sparse) score = codesDot(codes, (doc.codeAt + r) * dims, p.q, dims) * cs.scales[doc.at + r];
  else score = scoreRow(doc, r, p, dims);
  if (score > best.worst) best.offer(score, doc, r);
}

const SLOT_ROWS = 256;
const MAX_SLOTS = 1 << 24;
