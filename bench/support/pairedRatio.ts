/**
 * Paired timings (the same prompt measured with a change on and off): the ratio of the medians, the median of
 * the per-pair ratios, and a percentile-bootstrap interval of the latter. Pairs, not two pooled samples: on a
 * shared machine the load drifts over minutes, and a pair's two runs share the load of their moment.
 */
export interface PairedRatio {
  pairs: number;
  medianOn: number;
  medianOff: number;
  ratioOfMedians: number;
  medianRatio: number;
  /** the bootstrap's 2.5th and 97.5th percentiles of the median per-pair ratio */
  interval: [number, number];
}

export function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** `rand` is a seeded PRNG (bench reports are reproducible from their figures' seed). */
export function pairedRatio(on: number[], off: number[], rand: () => number, resamples = 4000): PairedRatio {
  if (on.length !== off.length || !on.length) throw new Error("paired timings need two lists of the same, non-zero length");
  const ratios = on.map((x, i) => x / off[i]);
  const boots: number[] = [];
  for (let b = 0; b < resamples; b++) boots.push(median(ratios.map(() => ratios[Math.floor(rand() * ratios.length)])));
  boots.sort((a, b) => a - b);
  const at = (q: number) => boots[Math.min(boots.length - 1, Math.floor(q * boots.length))];
  return {
    pairs: on.length,
    medianOn: median(on),
    medianOff: median(off),
    ratioOfMedians: median(on) / median(off),
    medianRatio: median(ratios),
    interval: [at(0.025), at(0.975)],
  };
}
