import type { ChunkRow } from "./rows.ts";

/** A chunk as the vector cache returns it: everything but its text (SQLite or LanceDB holds that), and its score. */
export type VectorHit = CachedRow & { score: number };

/** What the cache keeps of a row. */
export type CachedRow = Omit<ChunkRow, "text">;

interface DocumentBlock {
  /** per row, interned: a document's rows nearly always share one name and one location */
  documentName: string[];
  locationId: (string | null)[];
  ids: string[];
  chunkIndex: Int32Array;
  /** per row; rows that carry the same tags share one array (a document's chunks usually do) */
  tags: string[][];
  /** rows × dims int8 codes of the L2-normalised vector; the row's value d is codes[d] × scales[row] */
  codes: Int8Array;
  scales: Float32Array;
  /** per row, a bit per tag (bits assigned per project as tags appear) */
  tagBits: Uint32Array;
  /** per row, 1 when some tag has no bit (more than 32 distinct tags): checked by name */
  overflow: Uint8Array;
  bytes: number;
}

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
 * rows (text included) at ~3.9 KB a chunk; int8 codes with a per-row scale
 * keep ~0.5 KB, so ten big projects fit one box. The ranking loses almost
 * nothing (symmetric per-row scaling of a unit vector errs by < 0.4 % of a
 * coordinate; bench/scale-retrieval.ts measures recall against float32), and
 * the few hits a turn keeps get their text from SQLite, the source of truth.
 */
export class ProjectVectorCache {
  private readonly docs = new Map<string, DocumentBlock>();
  private readonly tagBit = new Map<string, number>();
  private count = 0;
  private byteCount = 0;
  /** when it was last searched, on the ProjectCaches clock (least recently used is evicted first) */
  usedAt = 0;

  constructor(
    readonly dims: number,
    readonly projectId: string,
  ) {}

  get size(): number {
    return this.count;
  }

  /** Memory this cache holds, estimated from its arrays and strings (what the vectorCacheMb budget counts). */
  get bytes(): number {
    return this.byteCount;
  }

  setDocument(documentId: string, rows: CachedRow[], vectors: Float32Array[]): void {
    this.deleteDocument(documentId);
    if (rows.length === 0) return;
    const dims = this.dims;
    const n = rows.length;
    const codes = new Int8Array(n * dims);
    const scales = new Float32Array(n);
    const tagBits = new Uint32Array(n);
    const overflow = new Uint8Array(n);
    const tags: string[][] = [];
    let bytes = 200 + documentId.length + codes.length + n * (4 + 4 + 4 + 1 + 16 + 16);
    const shared = new Map<string, string[]>();
    const strings = new Map<string, string>();
    const intern = (s: string) => {
      const have = strings.get(s);
      if (have !== undefined) return have;
      strings.set(s, s);
      bytes += 24 + s.length;
      return s;
    };
    const documentName: string[] = [];
    const locationId: (string | null)[] = [];
    rows.forEach((row, i) => {
      documentName.push(intern(row.documentName));
      locationId.push(row.locationId === null ? null : intern(row.locationId));
      scales[i] = quantise(vectors[i], dims, codes, i * dims);
      const key = row.tags.join("\u0000");
      let own = shared.get(key);
      if (!own) {
        own = [...row.tags];
        shared.set(key, own);
        bytes += 32 + own.reduce((s, t) => s + 24 + t.length, 0);
      }
      tags.push(own);
      bytes += 32 + row.id.length; // the id string and its slot
      for (const t of own) {
        const bit = this.bitOf(t, true);
        if (bit === null) overflow[i] = 1;
        else tagBits[i] |= bit;
      }
    });
    this.docs.set(documentId, {
      documentName,
      locationId,
      ids: rows.map((r) => r.id),
      chunkIndex: Int32Array.from(rows, (r) => r.chunkIndex),
      tags,
      codes,
      scales,
      tagBits,
      overflow,
      bytes,
    });
    this.count += n;
    this.byteCount += bytes;
  }

  deleteDocument(documentId: string): void {
    const old = this.docs.get(documentId);
    if (!old) return;
    this.count -= old.ids.length;
    this.byteCount -= old.bytes;
    this.docs.delete(documentId);
  }

  /** The n rows most similar to `query` among those whose tags meet `tags` (and not of an `exclude`d document), best first. */
  search(query: Float32Array, tags: ReadonlySet<string>, n: number, exclude?: (documentId: string) => boolean): VectorHit[] {
    if (!(n > 0)) return [];
    const q = normalised(query, this.dims);
    const dims = this.dims;
    let want = 0;
    for (const t of tags) want |= this.bitOf(t, false) ?? 0;
    // A short query hashed into 384 dims is sparse (tens of non-zero features): multiply only those.
    const nz: number[] = [];
    for (let d = 0; d < dims; d++) if (q[d] !== 0) nz.push(d);
    const sparse = nz.length < dims / 2;
    const nzIdx = Int32Array.from(nz);
    const nzVal = Float32Array.from(nz, (d) => q[d]);
    const best = new TopN(n);
    for (const [documentId, doc] of this.docs) {
      if (exclude?.(documentId)) continue;
      const { codes, scales, tagBits, overflow } = doc;
      const rows = scales.length;
      for (let r = 0; r < rows; r++) {
        if ((tagBits[r] & want) === 0 && !(overflow[r] && doc.tags[r].some((t) => tags.has(t)))) continue;
        let dot = 0;
        const base = r * dims;
        if (sparse) for (let j = 0; j < nzIdx.length; j++) dot += nzVal[j] * codes[base + nzIdx[j]];
        else for (let d = 0; d < dims; d++) dot += q[d] * codes[base + d];
        best.offer(dot * scales[r], doc, documentId, r);
      }
    }
    return best.sorted().map(({ score, doc, documentId, row }) => ({
      id: doc.ids[row],
      projectId: this.projectId,
      documentId,
      documentName: doc.documentName[row],
      chunkIndex: doc.chunkIndex[row],
      tags: [...doc.tags[row]], // a copy: the cache shares one array among a document's rows
      locationId: doc.locationId[row],
      score,
    }));
  }

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

/** The n best offers, kept as a short sorted list (n is at most a few hundred). */
class TopN {
  private readonly scores: number[] = [];
  private readonly items: { score: number; doc: DocumentBlock; documentId: string; row: number }[] = [];

  constructor(private readonly n: number) {}

  offer(score: number, doc: DocumentBlock, documentId: string, row: number): void {
    const { scores, items, n } = this;
    if (scores.length === n && score <= scores[n - 1]) return;
    let i = scores.length;
    while (i > 0 && scores[i - 1] < score) i--;
    scores.splice(i, 0, score);
    items.splice(i, 0, { score, doc, documentId, row });
    if (scores.length > n) {
      scores.pop();
      items.pop();
    }
  }

  sorted() {
    return this.items;
  }
}

/** Writes the int8 codes of v (normalised) at codes[offset…] and returns the scale that turns a code back into a value. */
function quantise(v: ArrayLike<number>, dims: number, codes: Int8Array, offset: number): number {
  // one pass for the norm and the largest coordinate, one to write: no temporary (a cold load quantises every row)
  let norm = 0;
  let max = 0;
  for (let d = 0; d < dims; d++) {
    const x = Number(v[d] ?? 0);
    norm += x * x;
    const a = Math.abs(x);
    if (a > max) max = a;
  }
  if (max === 0) return 0;
  const inv = 127 / max;
  for (let d = 0; d < dims; d++) codes[offset + d] = Math.round(Number(v[d] ?? 0) * inv);
  return max / 127 / Math.sqrt(norm);
}

function normalised(v: ArrayLike<number>, dims: number): Float32Array {
  const out = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    const x = Number(v[i] ?? 0);
    out[i] = x;
    norm += x * x;
  }
  if (norm > 0 && Math.abs(norm - 1) > 1e-6) {
    const s = 1 / Math.sqrt(norm);
    for (let i = 0; i < dims; i++) out[i] *= s;
  }
  return out;
}
