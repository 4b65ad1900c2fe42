/**
 * The GBNF of exactly the integers lo..hi as JSON writes them (no leading zeros, no "-0", no exponent): a
 * grammar that bounds an integer's digits, so a sampled number is always one its schema accepts. A range is
 * split into runs that share a digit pattern (the classic range-to-regex split): 1..500 is
 * `[1-9] | [1-9] [0-9] | [1-4] [0-9] [0-9] | "500"`.
 */
export function integerRangeGbnf(lo: number, hi: number): string {
  if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || lo > hi) throw new Error(`bad integer range ${lo}..${hi}`);
  const alternatives: string[] = [];
  if (lo < 0) alternatives.push(...digitPatterns(Math.max(1, -hi), -lo).map((p) => `"-" ${p}`));
  if (hi >= 0) alternatives.push(...digitPatterns(Math.max(0, lo), hi));
  return `(${alternatives.join(" | ")})`;
}

/** Patterns covering min..max (0 ≤ min ≤ max), each run with start and end of the same length. */
function digitPatterns(min: number, max: number): string[] {
  const stops = new Set([max]);
  for (let nines = 1, stop = withNines(min, nines); min <= stop && stop <= max; stop = withNines(min, ++nines)) stops.add(stop);
  for (let zeros = 1, stop = withZeros(max + 1, zeros) - 1; min < stop && stop <= max; stop = withZeros(max + 1, ++zeros) - 1) stops.add(stop);
  const out: string[] = [];
  let start = min;
  for (const stop of [...stops].sort((a, b) => a - b)) {
    out.push(runPattern(String(start), String(stop)));
    start = stop + 1;
  }
  return out;
}

/** n with its last k digits made 9 (19 → 19, 10 → 19 for k = 1; 10 → 99 for k = 2). */
function withNines(n: number, k: number): number {
  const s = String(n);
  return Number(s.slice(0, Math.max(0, s.length - k)) + "9".repeat(k));
}

/** n with its last k digits made 0. */
function withZeros(n: number, k: number): number {
  return n - (n % 10 ** k);
}

/** One run (start and end of the same length, differing digits 0…9 after the first that differs): digit by digit. */
function runPattern(start: string, stop: string): string {
  const parts: string[] = [];
  let literal = "";
  for (let i = 0; i < start.length; i++) {
    if (start[i] === stop[i]) {
      literal += start[i];
      continue;
    }
    if (literal) parts.push(`"${literal}"`);
    literal = "";
    parts.push(`[${start[i]}-${stop[i]}]`);
  }
  if (literal) parts.push(`"${literal}"`);
  return parts.length === 1 ? parts[0] : `(${parts.join(" ")})`;
}
