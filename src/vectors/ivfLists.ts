import { scoreRow, visible, type DocumentBlock, type PreparedQuery, type TopN } from "./cacheBlocks.ts";

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
 */
export class IvfListStore {
  private starts: Uint32Array;
  private entries = new Uint32Array(0);
  private more: (number[] | null)[];
  private moreCount = 0;
  /** per slot: its block and the block's row its first entry row stands for */
  private slotBlock: DocumentBlock[] = [];
  private slotBase = new Int32Array(64);

  constructor(readonly k: number) {
    this.starts = new Uint32Array(k + 1);
    this.more = new Array<number[] | null>(k).fill(null);
  }

  /** Entries held (live and dead) and bytes: the entries, the waiting ones, the slot table. */
  get bytes(): number {
    return this.entries.byteLength + this.starts.byteLength + this.moreCount * 8 + this.slotBlock.length * 8 + this.slotBase.byteLength;
  }

  /** The slots of a block newly listed: its first one (row r sits in slot first + (r >> 8), at r & 255). */
  slotsFor(block: DocumentBlock): number {
    const first = this.slotBlock.length;
    const n = Math.max(1, Math.ceil(block.scales.length / SLOT_ROWS));
    if (first + n > MAX_SLOTS) throw new Error("index slots exhausted");
    if (this.slotBase.length < first + n) {
      const grown = new Int32Array(Math.max(first + n, this.slotBase.length * 2));
      grown.set(this.slotBase);
      this.slotBase = grown;
    }
    for (let i = 0; i < n; i++) {
      this.slotBlock.push(block);
      this.slotBase[first + i] = i * SLOT_ROWS;
    }
    return first;
  }

  /** Lists row r of the block whose first slot is `first` under list c (waiting until the next compaction). */
  push(c: number, first: number, r: number): void {
    const e = (((first + (r >> 8)) << 8) | (r & 255)) >>> 0;
    (this.more[c] ??= []).push(e);
    this.moreCount++;
  }

  /** Entries waiting beyond the compacted ones. */
  get waiting(): number {
    return this.moreCount;
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
   * keeps its order), and the slot table without dead blocks' slots.
   */
  compact(): void {
    const { k, slotBlock, slotBase, entries, starts, more } = this;
    const remap = new Int32Array(slotBlock.length).fill(-1);
    const blocks: DocumentBlock[] = [];
    const bases = new Int32Array(Math.max(64, slotBlock.length));
    for (let s = 0; s < slotBlock.length; s++) {
      if (slotBlock[s].dead) continue;
      remap[s] = blocks.length;
      bases[blocks.length] = slotBase[s];
      blocks.push(slotBlock[s]);
    }
    const keep = (e: number) => remap[e >>> 8] >= 0;
    let live = 0;
    for (let c = 0; c < k; c++) {
      for (let i = starts[c]; i < starts[c + 1]; i++) if (keep(entries[i])) live++;
      for (const e of more[c] ?? []) if (keep(e)) live++;
    }
    const out = new Uint32Array(live);
    const outStarts = new Uint32Array(k + 1);
    let at = 0;
    const put = (e: number) => {
      const s = remap[e >>> 8];
      if (s >= 0) out[at++] = ((s << 8) | (e & 255)) >>> 0;
    };
    for (let c = 0; c < k; c++) {
      outStarts[c] = at;
      for (let i = starts[c]; i < starts[c + 1]; i++) put(entries[i]);
      for (const e of more[c] ?? []) put(e);
      more[c] = null;
    }
    outStarts[k] = at;
    this.entries = out;
    this.starts = outStarts;
    this.moreCount = 0;
    this.slotBlock = blocks;
    this.slotBase = bases.slice(0, Math.max(64, blocks.length));
  }

  /**
   * Offers list c's visible rows to `best`: the full scan's rule row by row (tag bits, tags past the 32nd by name,
   * excluded documents), and the int8 dot product inline with four accumulators for a dense query, where the
   * search spends its time (3× the CPU a row through scoreRow's general path: bench/ivf-recall.ts). Returns the
   * entries walked.
   */
  scan(c: number, p: PreparedQuery, best: TopN, dims: number): number {
    const { entries, slotBlock, slotBase } = this;
    const end = this.starts[c + 1];
    for (let i = this.starts[c]; i < end; i++) {
      const e = entries[i];
      offerRow(slotBlock[e >>> 8], slotBase[e >>> 8] + (e & 255), p, best, dims);
    }
    const more = this.more[c];
    if (more) for (const e of more) offerRow(slotBlock[e >>> 8], slotBase[e >>> 8] + (e & 255), p, best, dims);
    return end - this.starts[c] + (more?.length ?? 0);
  }
}

function offerRow(doc: DocumentBlock, r: number, p: PreparedQuery, best: TopN, dims: number): void {
  if (doc.dead) return;
  if ((doc.tagBits[r] & p.want) === 0 && (doc.overflow === null || !visible(doc, r, p))) return;
  if (p.exclude !== undefined && p.exclude(doc.documentId)) return;
  const codes = doc.codes;
  let score: number;
  if (codes !== null && !doc.packed && !p.sparse) {
    const q = p.q;
    const base = r * dims;
    const tail = dims & 3;
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
    score = (a0 + a1 + a2 + a3) * doc.scales[r];
  } else score = scoreRow(doc, r, p, dims);
  if (score > best.worst) best.offer(score, doc, r);
}

const SLOT_ROWS = 256;
const MAX_SLOTS = 1 << 24;
