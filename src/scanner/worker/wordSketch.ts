/** MinHash permutations per sketch: 32 × 4 bytes per extraction. */
const PERMUTATIONS = 32;
// Odd multipliers and offsets of a fixed seed: sketches must compare across runs.
const MUL = new Uint32Array(PERMUTATIONS);
const ADD = new Uint32Array(PERMUTATIONS);
{
  let s = 0x9e3779b9;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
  for (let i = 0; i < PERMUTATIONS; i++) {
    MUL[i] = next() | 1;
    ADD[i] = next();
  }
}

/** 32-bit FNV-1a of a string (cheap, non-cryptographic). */
export function fnv1a(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A MinHash sketch of a word set: the share of equal slots of two sketches estimates their Jaccard similarity. */
export function wordSketch(words: Set<string>): Uint8Array {
  const hashes = new Uint32Array(words.size);
  let k = 0;
  for (const w of words) hashes[k++] = fnv1a(w);
  return sketchOfHashes(hashes, hashes.length);
}

/**
 * A normalised text's (single-space separated words) count of distinct words and its MinHash
 * sketch, equal to `new Set(words.split(" ")).size` and `wordSketch` of that set, from one
 * typed array of word hashes: no substring or Set per word (a big text has tens of thousands).
 * Distinct words are counted by distinct 32-bit hashes; a collision only shifts a size filter.
 */
export function wordStats(words: string): { unique: number; sketch: Uint8Array } {
  let n = 1;
  for (let i = 0; i < words.length; i++) if (words.charCodeAt(i) === 32) n++;
  const hashes = new Uint32Array(n);
  let k = 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < words.length; i++) {
    const c = words.charCodeAt(i);
    if (c === 32) {
      hashes[k++] = h >>> 0;
      h = 0x811c9dc5;
    } else h = Math.imul(h ^ c, 0x01000193);
  }
  hashes[k] = h >>> 0;
  hashes.sort();
  let unique = 0;
  for (let i = 0; i < n; i++) if (i === 0 || hashes[i] !== hashes[i - 1]) hashes[unique++] = hashes[i];
  return { unique, sketch: sketchOfHashes(hashes, unique) };
}

function sketchOfHashes(hashes: Uint32Array, count: number): Uint8Array {
  const mins = new Uint32Array(PERMUTATIONS);
  // For speed: one permutation at a time over all hashes keeps its multiplier, offset and minimum in
  // registers (the word-major order re-read and re-wrote the 32 minimums per word: a tenth of extraction).
  for (let i = 0; i < PERMUTATIONS; i++) {
    const mul = MUL[i];
    const add = ADD[i];
    let min = 0xffffffff;
    for (let j = 0; j < count; j++) {
      let x = (Math.imul(hashes[j], mul) + add) >>> 0;
      x ^= x >>> 15;
      x = Math.imul(x, 0x2c1b3c6d) >>> 0;
      x = (x ^ (x >>> 12)) >>> 0;
      if (x < min) min = x;
    }
    mins[i] = min;
  }
  return new Uint8Array(mins.buffer);
}

/** Estimated Jaccard similarity of the two sketched sets. */
export function sketchSimilarity(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== PERMUTATIONS * 4 || b.length !== PERMUTATIONS * 4) return 0;
  let same = 0;
  // Byte-wise: a BLOB from SQLite need not be 4-byte aligned.
  for (let i = 0; i < a.length; i += 4) {
    if (a[i] === b[i] && a[i + 1] === b[i + 1] && a[i + 2] === b[i + 2] && a[i + 3] === b[i + 3]) same++;
  }
  return same / PERMUTATIONS;
}
