// The project vector cache as it was before int8 codes (float32 vectors and whole rows, text included), kept
// so bench/scale-retrieval.ts can run it side by side with the current one.
import type { ChunkRow } from "../../src/vectors/rows.ts";

interface DocumentVectors {
  rows: ChunkRow[];
  /** rows.length × dims, row-major, each row L2-normalised (cosine = dot product) */
  vectors: Float32Array;
  /** per row, a bit per tag (bits assigned per project as tags appear) */
  tagBits: Uint32Array;
  /** per row, true when some tag has no bit (more than 32 distinct tags): checked by name */
  overflow: Uint8Array;
}

const TAG_BITS = 32;

/**
 * One project's chunk vectors in memory, for the vector half of hybrid
 * search. LanceDB stays the store of record; this is a read cache that the
 * VectorStore keeps in step with every write it makes (the server process is
 * the only writer). Why: a filtered brute-force scan in LanceDB costs
 * ~25 ms at 10k chunks on 2 cores (decoding the Lance format dominates),
 * while a dot product over a contiguous Float32Array takes a few ms — and
 * the interact hot path has a 20 ms budget for everything but generation.
 * Memory: dims × 4 bytes per chunk plus its text (10k chunks ≈ 15 MB of vectors).
 */
export class Float32VectorCache {
  private readonly docs = new Map<string, DocumentVectors>();
  private readonly tagBit = new Map<string, number>();
  private count = 0;

  constructor(readonly dims: number) {}

  get size(): number {
    return this.count;
  }

  setDocument(documentId: string, rows: ChunkRow[], vectors: Float32Array[]): void {
    this.deleteDocument(documentId);
    if (rows.length === 0) return;
    const flat = new Float32Array(rows.length * this.dims);
    const tagBits = new Uint32Array(rows.length);
    const overflow = new Uint8Array(rows.length);
    rows.forEach((row, i) => {
      flat.set(normalised(vectors[i], this.dims), i * this.dims);
      for (const t of row.tags) {
        const bit = this.bitOf(t, true);
        if (bit === null) overflow[i] = 1;
        else tagBits[i] |= bit;
      }
    });
    this.docs.set(documentId, { rows, vectors: flat, tagBits, overflow });
    this.count += rows.length;
  }

  deleteDocument(documentId: string): void {
    const old = this.docs.get(documentId);
    if (!old) return;
    this.count -= old.rows.length;
    this.docs.delete(documentId);
  }

  /** The n rows most similar to `query` among those whose tags meet `tags` (and not of an `exclude`d document), best first. */
  search(query: Float32Array, tags: ReadonlySet<string>, n: number, exclude?: (documentId: string) => boolean): ChunkRow[] {
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
    const bestScore: number[] = [];
    const bestRow: ChunkRow[] = [];
    for (const [documentId, doc] of this.docs) {
      if (exclude?.(documentId)) continue;
      const { rows, vectors, tagBits, overflow } = doc;
      for (let r = 0; r < rows.length; r++) {
        if ((tagBits[r] & want) === 0 && !(overflow[r] && rows[r].tags.some((t) => tags.has(t)))) continue;
        let dot = 0;
        const base = r * dims;
        if (sparse) for (let j = 0; j < nzIdx.length; j++) dot += nzVal[j] * vectors[base + nzIdx[j]];
        else for (let d = 0; d < dims; d++) dot += q[d] * vectors[base + d];
        if (bestScore.length === n && dot <= bestScore[n - 1]) continue;
        // insertion into a short sorted list (n is at most a few hundred)
        let i = bestScore.length;
        while (i > 0 && bestScore[i - 1] < dot) i--;
        bestScore.splice(i, 0, dot);
        bestRow.splice(i, 0, rows[r]);
        if (bestScore.length > n) {
          bestScore.pop();
          bestRow.pop();
        }
      }
    }
    return bestRow;
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
