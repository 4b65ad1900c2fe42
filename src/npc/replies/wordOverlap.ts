/** Word-level overlap between two texts: what the echo, prompt-echo and repetition checks measure. */

/** The words of a text, lower case, punctuation dropped (apostrophes inside words kept: "don't", "Callow's"). */
export function words(text: string): string[] {
  return (text.toLowerCase().replace(/[’‘]/g, "'").match(/[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu) ?? []);
}

/** The length of the longest run of consecutive words the two word lists share. */
export function longestCommonRun(a: string[], b: string[]): number {
  return longestCommonRunAt(a, b).length;
}

/** The longest run of consecutive words the two word lists share, and where it starts in `a` (and in `b`). */
export function longestCommonRunAt(a: string[], b: string[]): { length: number; at: number; atB: number } {
  const found = { length: 0, at: 0, atB: 0 };
  if (a.length === 0 || b.length === 0) return found;
  let best = 0;
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      if (a[i - 1] === b[j - 1]) {
        row[j] = prev[j - 1] + 1;
        if (row[j] > best) {
          best = row[j];
          found.length = best;
          found.at = i - best;
          found.atB = j - best;
        }
      }
    }
    prev = row;
  }
  return found;
}

/** `run` occurs in `w` as consecutive words. */
export function holdsRun(w: string[], run: string[]): boolean {
  for (let i = 0; i + run.length <= w.length; i++) if (run.every((x, k) => w[i + k] === x)) return true;
  return false;
}

/** How often the most repeated run of `n` words occurs in the list. */
export function maxNgramCount(w: string[], n: number): number {
  const seen = new Map<string, number>();
  let max = 0;
  for (let i = 0; i + n <= w.length; i++) {
    const key = w.slice(i, i + n).join(" ");
    const c = (seen.get(key) ?? 0) + 1;
    seen.set(key, c);
    if (c > max) max = c;
  }
  return max;
}
