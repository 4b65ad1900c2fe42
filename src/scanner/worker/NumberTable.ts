/**
 * An open-addressing hash table from 48-bit keys to non-negative 31-bit values
 * in typed arrays: 10 bytes a slot at ≤ 75% load, where a JS Map of numbers
 * costs several times that. A scan keeps one entry per extraction (600k for
 * the 200 MB archive of bench/scanner.ts), so this keeps the worker's memory flat.
 */
export class NumberTable {
  private keysHi: Uint16Array;
  private keysLo: Uint32Array;
  /** value + 1; 0 marks an empty slot */
  private values: Int32Array;
  private count = 0;

  constructor(capacity = 1 << 12) {
    this.keysHi = new Uint16Array(capacity);
    this.keysLo = new Uint32Array(capacity);
    this.values = new Int32Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** key: an integer in [0, 2^48). */
  get(key: number): number | undefined {
    const hi = Math.floor(key / 0x1_0000_0000) & 0xffff;
    const lo = key >>> 0;
    const mask = this.values.length - 1;
    for (let i = slot(hi, lo) & mask; this.values[i] !== 0; i = (i + 1) & mask) {
      if (this.keysLo[i] === lo && this.keysHi[i] === hi) return this.values[i] - 1;
    }
    return undefined;
  }

  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  /** Sets the value (an integer in [0, 2^31 − 1)) of a key, replacing any. */
  set(key: number, value: number): void {
    if ((this.count + 1) * 4 > this.values.length * 3) this.grow();
    const hi = Math.floor(key / 0x1_0000_0000) & 0xffff;
    const lo = key >>> 0;
    const mask = this.values.length - 1;
    let i = slot(hi, lo) & mask;
    for (; this.values[i] !== 0; i = (i + 1) & mask) {
      if (this.keysLo[i] === lo && this.keysHi[i] === hi) {
        this.values[i] = value + 1;
        return;
      }
    }
    this.keysHi[i] = hi;
    this.keysLo[i] = lo;
    this.values[i] = value + 1;
    this.count++;
  }

  private grow(): void {
    const { keysHi, keysLo, values } = this;
    const capacity = values.length * 2;
    this.keysHi = new Uint16Array(capacity);
    this.keysLo = new Uint32Array(capacity);
    this.values = new Int32Array(capacity);
    this.count = 0;
    for (let i = 0; i < values.length; i++) if (values[i] !== 0) this.set(keysHi[i] * 0x1_0000_0000 + keysLo[i], values[i] - 1);
  }
}

function slot(hi: number, lo: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
