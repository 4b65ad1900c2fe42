import type { DocumentBlock, RowMeta } from "./cacheBlocks.ts";
import type { FullVectors } from "./fullVectors.ts";

/** Estimated bytes of a JS string of `n` one-byte characters, and of an object or typed array's own header. */
const stringBytes = (n: number) => 24 + n;
const ARRAY_HEADER = 64;

/**
 * A document's rows as the project vector cache keeps them (cacheBlocks.ts DocumentBlock), with the memory they hold.
 * Why this shape: past the codes, what a row costs is its strings and the slots pointing at them; per row there
 * remain only the scale, the tag bits and its id's characters. A document's rows nearly always share one name, one
 * location and one tag set, and are chunks 0…n-1 in order, so those are kept once a block and per row only when
 * they differ (BENCHMARKS.md "Big worlds: bytes per chunk" measures each).
 */
export function makeBlock(
  documentId: string,
  meta: RowMeta,
  codes: Int8Array,
  scales: Float32Array,
  full: FullVectors | null,
  bitOf: (tag: string) => number | null,
  packed = false,
): DocumentBlock {
  const n = scales.length;
  let bytes = 200 + stringBytes(documentId.length) + codes.byteLength + ARRAY_HEADER + n * 4 + (full?.heapBytes ?? 0);
  // ids end to end, after their common prefix
  const idPrefix = commonPrefix(meta.ids);
  const p = idPrefix.length;
  const idText = p ? meta.ids.map((id) => id.slice(p)).join("") : meta.ids.join("");
  const idEnd = idText.length < 65_536 ? new Uint16Array(n) : new Uint32Array(n);
  let end = 0;
  for (let i = 0; i < n; i++) idEnd[i] = end += meta.ids[i].length - p;
  bytes += stringBytes(idPrefix.length) + stringBytes(idText.length) + ARRAY_HEADER + idEnd.byteLength;
  // one name and one location for all rows, else per row (each distinct string once)
  const strings = new Map<string, string>();
  const intern = (s: string) => {
    const have = strings.get(s);
    if (have !== undefined) return have;
    strings.set(s, s);
    bytes += stringBytes(s.length);
    return s;
  };
  const uniform = <T>(xs: readonly T[]) => xs.every((x) => x === xs[0]);
  let documentName: string | string[];
  if (uniform(meta.documentName)) documentName = intern(meta.documentName[0] ?? "");
  else {
    documentName = meta.documentName.map(intern);
    bytes += ARRAY_HEADER + n * 8;
  }
  let locationId: string | null | (string | null)[];
  if (uniform(meta.locationId)) locationId = meta.locationId[0] == null ? null : intern(meta.locationId[0]);
  else {
    locationId = meta.locationId.map((l) => (l === null ? null : intern(l)));
    bytes += ARRAY_HEADER + n * 8;
  }
  let chunkIndex: Int32Array | null = meta.chunkIndex;
  if (chunkIndex.every((c, i) => c === i)) chunkIndex = null;
  else bytes += ARRAY_HEADER + n * 4;
  // distinct tag sets, a row's tags and bits from its set
  const sets = new Map<string, number>();
  const tagSets: string[][] = [];
  const setOf = n <= 256 ? new Uint8Array(n) : n <= 65_536 ? new Uint16Array(n) : new Uint32Array(n);
  const tagBits = new Uint32Array(n);
  const setBits: number[] = [];
  const setOverflow: boolean[] = [];
  let overflow: Uint8Array | null = null;
  let prevTags: readonly string[] | null = null;
  let prevSet = 0;
  for (let i = 0; i < n; i++) {
    const t = meta.tags[i];
    // a row with its predecessor's tags (the common case) needs no key: a cold load places 100,000 rows
    let s: number | undefined = prevTags !== null && sameTags(t, prevTags) ? prevSet : sets.get(t.join("\u0000"));
    if (s === undefined) {
      const key = t.join("\u0000");
      s = tagSets.length;
      sets.set(key, s);
      const own = meta.tags[i].map(intern);
      tagSets.push(own);
      bytes += 32 + own.length * 8;
      let bits = 0;
      let over = false;
      for (const tag of own) {
        const bit = bitOf(tag);
        if (bit === null) over = true;
        else bits |= bit;
      }
      setBits.push(bits);
      setOverflow.push(over);
    }
    prevTags = t;
    prevSet = s;
    setOf[i] = s;
    tagBits[i] = setBits[s];
    if (setOverflow[s]) (overflow ??= new Uint8Array(n))[i] = 1;
  }
  bytes += ARRAY_HEADER + n * 4 + (overflow ? ARRAY_HEADER + n : 0);
  const tagSetOf = tagSets.length <= 1 ? null : setOf;
  if (tagSetOf) bytes += ARRAY_HEADER + tagSetOf.byteLength;
  return { documentId, idPrefix, idText, idEnd, documentName, locationId, chunkIndex, tagSets, tagSetOf, codes, packed, home: null, scales, full, tagBits, overflow, bytes, dead: false };
}

function commonPrefix(ids: readonly string[]): string {
  if (ids.length < 2) return "";
  let p = ids[0].length;
  for (let i = 1; i < ids.length && p > 0; i++) {
    const id = ids[i];
    let j = 0;
    while (j < p && j < id.length && id.charCodeAt(j) === ids[0].charCodeAt(j)) j++;
    p = j;
  }
  return ids[0].slice(0, p);
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
