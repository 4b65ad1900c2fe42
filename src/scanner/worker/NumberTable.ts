/**
 * An open-addressing hash table from 48-bit keys to 32-bit values in typed
 * arrays: ~24 bytes per entry at most, where a JS Map of numbers costs several
 * times that. A scan of a 200 MB archive keeps one entry per extraction (600k
 * in bench/scanner.ts), so this is what keeps the worker's memory flat.
 */
export class NumberTable {
  private keysHi: Uint32Array;
  private keysLo: Uint32Array;
  private values: Int32Array;
  private used: Uint8Array;
  private count = 0;

  constructor(capacity = 1 << 12) {
    this.keysHi = new Uint32Array(capacity);
    this.keysLo = new Uint32Array(capacity);
    this.values = new Int32Array(capacity);
    this.used = new Uint8Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** key: a non-negative integer below 2^48. */
  get(key: number): number | undefined {
    const hi = Math.floor(key / 0x1_0000_0000) >>> 0;
    const lo = key >>> 0;
    const mask = this.used.length - 1;
    for (let i = slot(hi, lo) & mask; this.used[i]; i = (i + 1) & mask) {
      if (this.keysHi[i] === hi && this.keysLo[i] === lo) return this.values[i];
    }
    return undefined;
  }

  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  /** Sets the value of a key (replacing any). */
  set(key: number, value: number): void {
    if ((this.count + 1) * 2 > this.used.length) this.grow();
    const hi = Math.floor(key / 0x1_0000_0000) >>> 0;
    const lo = key >>> 0;
    const mask = this.used.length - 1;
    let i = slot(hi, lo) & mask;
    for (; this.used[i]; i = (i + 1) & mask) {
      if (this.keysHi[i] === hi && this.keysLo[i] === lo) {
        this.values[i] = value;
        return;
      }
    }
    this.used[i] = 1;
    this.keysHi[i] = hi;
    this.keysLo[i] = lo;
    this.values[i] = value;
    this.count++;
  }

  private grow(): void {
    const { keysHi, keysLo, values, used } = this;
    const capacity = used.length * 2;
    this.keysHi = new Uint32Array(capacity);
    this.keysLo = new Uint32Array(capacity);
    this.values = new Int32Array(capacity);
    this.used = new Uint8Array(capacity);
    this.count = 0;
    for (let i = 0; i < used.length; i++) if (used[i]) this.set(keysHi[i] * 0x1_0000_0000 + keysLo[i], values[i]);
  }
}

function slot(hi: number, lo: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
