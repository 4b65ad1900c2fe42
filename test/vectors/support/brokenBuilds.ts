import { truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileVectors, SnapshotReader } from "../../../src/vectors/fullVectors.ts";
import { ProjectVectorCache, type CacheOptions } from "../../../src/vectors/ProjectVectorCache.ts";
import { chunk } from "../helpers.ts";

// Project caches whose background build throws on a real code path, beside a reference cache that holds the same
// rows and never builds (it answers by the exact row scan). Vectors are plain JS arithmetic on a seeded generator:
// the same on any CPU.

export const DIMS = 64;

function rng(seed: number) {
  let x = seed;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
}

/** Unit vectors pointing into the positive orthant (all query directions below are there too). */
function positive(rand: () => number): Float32Array {
  const v = new Float32Array(DIMS);
  let n = 0;
  for (let d = 0; d < DIMS; d++) n += (v[d] = 0.05 + rand()) ** 2;
  for (let d = 0; d < DIMS; d++) v[d] /= Math.sqrt(n);
  return v;
}

const rows = (doc: string, n: number, tags: string[]) => Array.from({ length: n }, (_, i) => chunk("p", doc, i, "", tags));

/** Dense queries near the good documents (positive), far from the broken one (negative): it is never a candidate. */
export function denseQueries(count: number): Float32Array[] {
  const rand = rng(77);
  return Array.from({ length: count }, () => positive(rand));
}

/**
 * A cache of dense rows, 4-bit (rowBits 4: the index reads such a row's float32 vector to list it), one document of
 * which is read from a snapshot file since cut short (a disk fault, a file replaced under the process): its index
 * build throws "vector cache snapshot cut short" on a timer. Its rows point away from every query, so a search's
 * candidates never read them. `reference`: the same rows, whole, never indexed.
 */
export function indexOverCutFile(dir: string, opts: CacheOptions) {
  const cache = new ProjectVectorCache(DIMS, "p", { rowBits: 4, indexMinRows: 100, ...opts });
  const reference = new ProjectVectorCache(DIMS, "p", { rowBits: 4, indexMinRows: 0 });
  const rand = rng(5);
  for (let d = 0; d < 30; d++) {
    const vs = Array.from({ length: 5 }, () => positive(rand));
    for (const c of [cache, reference]) c.setDocument(`d${d}`, rows(`d${d}`, 5, ["a"]), vs);
  }
  const bad = Array.from({ length: 5 }, () => positive(rand).map((x) => -x));
  const path = join(dir, "cut.vc");
  const full = new Float32Array(5 * DIMS);
  bad.forEach((v, i) => full.set(v, i * DIMS));
  writeFileSync(path, new Uint8Array(full.buffer));
  const reader = SnapshotReader.open(path);
  truncateSync(path, 0);
  const codes = new Int8Array(5 * DIMS);
  const scales = new Float32Array(5);
  bad.forEach((v, i) => {
    let max = 0;
    for (const x of v) max = Math.max(max, Math.abs(x));
    scales[i] = max / 127;
    for (let k = 0; k < DIMS; k++) codes[i * DIMS + k] = Math.round(v[k] / scales[i]);
  });
  const meta = rows("broken", 5, ["a"]);
  cache.restoreDocument("broken", { ids: meta.map((r) => r.id), documentName: meta.map((r) => r.documentName), locationId: meta.map((r) => r.locationId ?? null), chunkIndex: Int32Array.from(meta, (r) => r.chunkIndex), tags: meta.map((r) => r.tags) }, codes, scales, new FileVectors(reader, 0, 5, DIMS), true);
  reference.setDocument("broken", meta, bad);
  return { cache, reference, mend: () => cache.setDocument("broken", meta, bad) };
}

/** Sparse vectors as the hashing embedder gives: a few non-zero dims. */
function sparse(rand: () => number, nz = 6): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < nz; i++) v[Math.floor(rand() * DIMS)] += rand() * 2 - 1;
  return v;
}

export function sparseQueries(count: number): Float32Array[] {
  const rand = rng(91);
  return Array.from({ length: count }, () => sparse(rand, 4));
}

/**
 * A cache of sparse rows past the column copy's threshold, one block of which has lost its codes with no store
 * holding them (an inconsistent block, the kind a bug leaves): the copy's background slice throws a TypeError when it
 * reaches it, in an immediate or a microtask. The block's rows carry tag "z", which no query asks for, so the row scan
 * never reads them. `reference`: the same rows, whole, scanned by rows.
 */
export function columnCopyOverBrokenBlock(opts: CacheOptions) {
  const cache = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: 1, columnSliceRows: 16, ...opts });
  const reference = new ProjectVectorCache(DIMS, "p", { indexMinRows: 0, columnMinRows: Number.POSITIVE_INFINITY });
  const rand = rng(11);
  for (let d = 0; d < 40; d++) {
    const vs = Array.from({ length: 4 }, () => sparse(rand));
    const tags = d === 17 ? ["z"] : [d % 2 ? "a" : "b"];
    for (const c of [cache, reference]) c.setDocument(`d${d}`, rows(`d${d}`, 4, tags), vs);
  }
  const block = cache.blocks().find((b) => b.documentId === "d17")!;
  block.codeArr = null;
  return { cache, reference, tags: new Set(["a", "b"]) };
}
