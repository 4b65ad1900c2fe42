import type { OptimizePolicy } from "../../src/vectors/OptimizePolicy.ts";
import type { Kind } from "../../src/vectors/generation.ts";

/**
 * The vector upkeep's commit rule as it was before a pause had to earn its compaction (for bench/scale-indexing.ts
 * to measure beside the current one): a burst compacts after a quarter's growth (at least 2,000 rows), and any
 * pause of 2 s compacts whatever was written.
 */
export function optimizeAsItWas(policy: OptimizePolicy): void {
  const p = policy as unknown as {
    rowsSince: Record<Kind, number>;
    rowsAt: Record<Kind, number>;
    timer: Record<Kind, ReturnType<typeof setTimeout> | null>;
    run(kind: Kind): Promise<void>;
  };
  policy.noteCommit = (kind: Kind, rows = 1) => {
    p.rowsSince[kind] += rows;
    const t = p.timer[kind];
    if (t) clearTimeout(t);
    p.timer[kind] = null;
    if (p.rowsSince[kind] >= Math.max(2_000, 0.25 * p.rowsAt[kind])) void policy.run(kind);
    else {
      const timer = setTimeout(() => void policy.run(kind), 2_000);
      (timer as { unref?: () => void }).unref?.();
      p.timer[kind] = timer;
    }
  };
}
