/** FNV-1a over UTF-16 code units of `s[from, to)`; cheap, but its low bits are weak: spread them with `mix32`. */
export function fnv1a(s: string, from = 0, to = s.length): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's finaliser (fmix32): spreads every input bit over the whole word. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a with a final avalanche: cheap, stable across processes, well spread. */
export function hash32(s: string): number {
  return mix32(fnv1a(s));
}
