/**
 * Consistent hashing with bounded loads (Mirrokni, Thorup, Zadimoghaddam 2018): a key goes to the
 * first node clockwise from its hash that is eligible and below `ceil(c × average load × weight share)`.
 * The same conversation therefore keeps landing on the same backend (its prompt cache stays warm)
 * until that backend is down or overloaded; then it moves to the next node on the ring, and only
 * the conversations of the node that changed move.
 */
export interface RingNode {
  id: string;
  weight: number;
}

/** Virtual nodes per unit of weight: enough for an even spread over a handful of backends. */
const VNODES_PER_WEIGHT = 64;

export class HashRing<N extends RingNode> {
  private readonly points: { hash: number; node: N }[] = [];
  private readonly totalWeight: number;

  constructor(
    readonly nodes: readonly N[],
    /** How far above the average a node may be loaded (c in the paper; 1.25 is their practical choice). */
    private readonly balance = 1.25,
  ) {
    for (const node of nodes) {
      const vnodes = Math.max(1, Math.round(node.weight * VNODES_PER_WEIGHT));
      for (let v = 0; v < vnodes; v++) this.points.push({ hash: hash32(`${node.id}#${v}`), node });
    }
    this.points.sort((a, b) => a.hash - b.hash);
    this.totalWeight = nodes.reduce((n, b) => n + Math.max(0, b.weight), 0) || 1;
  }

  /** Distinct nodes in ring order from the key's position (the failover order of that key). */
  order(key: string): N[] {
    const out: N[] = [];
    if (this.points.length === 0) return out;
    const h = hash32(key);
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.points[mid].hash < h) lo = mid + 1;
      else hi = mid;
    }
    const seen = new Set<string>();
    for (let i = 0; i < this.points.length && seen.size < this.nodes.length; i++) {
      const { node } = this.points[(lo + i) % this.points.length];
      if (seen.has(node.id)) continue;
      seen.add(node.id);
      out.push(node);
    }
    return out;
  }

  /**
   * The node for `key`: the first in ring order that `eligible` accepts and whose load is under
   * its bound (counting this request). `load(node)` is the node's requests in flight.
   */
  pick(key: string, eligible: (node: N) => boolean, load: (node: N) => number): N | null {
    const candidates = this.order(key).filter(eligible);
    if (candidates.length === 0) return null;
    const weight = candidates.reduce((n, c) => n + c.weight, 0) || 1;
    const total = candidates.reduce((n, c) => n + load(c), 0) + 1;
    for (const node of candidates) {
      const bound = Math.ceil((this.balance * total * node.weight) / weight);
      if (load(node) + 1 <= bound) return node;
    }
    return candidates[0];
  }

  get weightTotal(): number {
    return this.totalWeight;
  }
}

/** FNV-1a with a final avalanche (murmur3 fmix32): cheap, stable across processes, well spread. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
