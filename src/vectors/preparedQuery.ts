// A query made ready for the vector cache's scans, in a file of its own so the row stores (fullVectors.ts) can score
// one without importing the blocks that hold them.

/** A query made ready for scoring many rows: unit vector, its non-zero dims, the tag mask. */
export interface PreparedQuery {
  q: Float32Array;
  sparse: boolean;
  /** a sparse query's non-zero dims and their values (empty for a dense one) */
  nzIdx: Int32Array;
  nzVal: Float32Array;
  want: number;
  tags: ReadonlySet<string>;
  exclude?: (documentId: string) => boolean;
}

export function prepareQuery(query: Float32Array, dims: number, want: number, tags: ReadonlySet<string>, exclude?: (documentId: string) => boolean): PreparedQuery {
  const q = normalised(query, dims);
  // A short query hashed into 384 dims is sparse (tens of non-zero features): multiply only those. A dense one
  // scores every dim and keeps no list of them (two arrays of 384 a search, unread).
  let nz = 0;
  for (let d = 0; d < dims; d++) if (q[d] !== 0) nz++;
  const sparse = nz < dims / 2;
  const nzIdx = sparse ? new Int32Array(nz) : NO_DIMS;
  const nzVal = sparse ? new Float32Array(nz) : NO_VALUES;
  if (sparse)
    for (let d = 0, j = 0; d < dims; d++)
      if (q[d] !== 0) {
        nzIdx[j] = d;
        nzVal[j++] = q[d];
      }
  return { q, sparse, nzIdx, nzVal, want, tags, exclude };
}

const NO_DIMS = new Int32Array(0);
const NO_VALUES = new Float32Array(0);

export function normalised(v: ArrayLike<number>, dims: number): Float32Array {
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
