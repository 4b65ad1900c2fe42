import { closeSync, openSync, readSync } from "node:fs";
import type { PreparedQuery } from "./preparedQuery.ts";

/**
 * A document block's float32 vectors (rows × dims unit vectors), which re-score a search's top candidates: the
 * process's own copy for rows written since the project's snapshot, else rows of the snapshot file read when a
 * search needs them.
 *
 * Why the file's rows are read and not mapped: a mapping is an ArrayBuffer, and the runtime counts its whole length
 * as heap (196 MB at 100,000 chunks, though only the pages read are resident). The collector lets garbage pile up in
 * proportion to the heap it counts, so the mapping cost real memory: in a process with 60 MB of live objects, a
 * 206 MB mapping left alone raised the peak RSS under a stream of garbage from 203 to 653 MB (bench/rss-account.ts).
 * A search re-scores a few dozen candidates: as many reads of 1.5 KB from the OS page cache (a few µs each).
 */
export interface FullVectors {
  /** an own copy (held in this process, counted in the cache's bytes), or rows of a snapshot file */
  readonly owned: boolean;
  /** bytes this process holds for them */
  readonly heapBytes: number;
  /** row r's vector: a view valid until the next call on any FullVectors */
  row(r: number): Float32Array;
  /** row r's dot product with the query (a search re-scores its candidates so: no view made a row) */
  dot(r: number, p: PreparedQuery): number;
  /** every row, in one array */
  all(): Float32Array;
  /** rows `at` … `at + n` in one array (a snapshot's save writes a block's) */
  slice(at: number, n: number): Float32Array;
}

/** A block's rows of some FullVectors: its row r is row `at` + r there (one FullVectors serves many blocks). */
export interface RowsAt {
  full: FullVectors;
  at: number;
}

export class OwnVectors implements FullVectors {
  readonly owned = true;
  constructor(
    private readonly data: Float32Array,
    private readonly dims: number,
  ) {}

  get heapBytes(): number {
    return this.data.byteLength;
  }

  row(r: number): Float32Array {
    return this.data.subarray(r * this.dims, (r + 1) * this.dims);
  }

  dot(r: number, p: PreparedQuery): number {
    return queryDot(this.data, r * this.dims, p, this.dims);
  }

  all(): Float32Array {
    return this.data;
  }

  slice(at: number, n: number): Float32Array {
    return at === 0 && n * this.dims === this.data.length ? this.data : this.data.subarray(at * this.dims, (at + n) * this.dims);
  }
}

/** An open snapshot file. Closed once no block reads from it (a newer snapshot replaced it, or the cache went). */
export class SnapshotReader {
  private static readonly closer = new FinalizationRegistry<number>((fd) => {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  });

  /** The file stays readable through its descriptor after a newer snapshot is renamed over its path. */
  constructor(readonly fd: number) {
    SnapshotReader.closer.register(this, fd);
  }

  static open(path: string): SnapshotReader {
    return new SnapshotReader(openSync(path, "r"));
  }
}

let scratch = new Float32Array(0);
/** the scratch's bytes, which a read fills (made with it, not a read) */
let scratchBytes = new Uint8Array(0);

/** The query's dot product with the `dims` values of `v` from `base`, over the query's non-zero dims when sparse. */
function queryDot(v: Float32Array, base: number, p: PreparedQuery, dims: number): number {
  let dot = 0;
  if (p.sparse) {
    const { nzIdx, nzVal } = p;
    for (let j = 0; j < nzIdx.length; j++) dot += nzVal[j] * v[base + nzIdx[j]];
  } else {
    const q = p.q;
    for (let d = 0; d < dims; d++) dot += q[d] * v[base + d];
  }
  return dot;
}

export class FileVectors implements FullVectors {
  readonly owned = false;
  readonly heapBytes = 0;

  /** `at`: the byte offset of the block's first row in the file */
  constructor(
    private readonly file: SnapshotReader,
    private readonly at: number,
    private readonly rows: number,
    private readonly dims: number,
  ) {}

  row(r: number): Float32Array {
    if (scratch.length !== this.dims) {
      scratch = new Float32Array(this.dims);
      scratchBytes = new Uint8Array(scratch.buffer);
    }
    this.readBytes(scratchBytes, this.at + r * this.dims * 4);
    return scratch;
  }

  dot(r: number, p: PreparedQuery): number {
    return queryDot(this.row(r), 0, p, this.dims);
  }

  all(): Float32Array {
    return this.slice(0, this.rows);
  }

  slice(at: number, n: number): Float32Array {
    const out = new Float32Array(n * this.dims);
    this.read(out, this.at + at * this.dims * 4);
    return out;
  }

  private read(into: Float32Array, position: number): void {
    this.readBytes(new Uint8Array(into.buffer, into.byteOffset, into.byteLength), position);
  }

  private readBytes(bytes: Uint8Array, position: number): void {
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(this.file.fd, bytes, done, bytes.length - done, position + done);
      if (n <= 0) throw new Error("vector cache snapshot cut short");
      done += n;
    }
  }
}
