const WORDS = "the old guard of the north gate knows every road and river in the king's land and speaks of dragons gold and quests".split(" ");

/** `n` words drawn from a fixed vocabulary by a seeded LCG: the same prompt text on every run and machine. */
export function words(n: number, seed: number): string {
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(WORDS[x % WORDS.length]);
  }
  return out.join(" ");
}
