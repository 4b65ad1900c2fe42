/**
 * Pronounceable pseudo-words drawn like real text: the word of rank r comes
 * with probability ∝ 1/r (Zipf). For benchmark corpora that neither repeat
 * one sentence nor look like noise to BM25.
 */
export function zipfWords(rand: () => number, vocabularySize = 5000): { vocabulary: string[]; word: () => string } {
  const SYL = ["ka", "ro", "an", "th", "el", "mi", "dor", "un", "ve", "sa", "gri", "os", "la", "ne", "quo", "bar"];
  const vocabulary = Array.from({ length: vocabularySize }, (_, i) => {
    let w = "";
    let x = i + 7;
    do {
      w += SYL[x % SYL.length];
      x = Math.floor(x / SYL.length);
    } while (x > 0);
    return w;
  });
  const cdf = new Float64Array(vocabularySize);
  let acc = 0;
  for (let i = 0; i < vocabularySize; i++) cdf[i] = acc += 1 / (i + 1);
  for (let i = 0; i < vocabularySize; i++) cdf[i] /= acc;
  const word = () => {
    const r = rand();
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo];
  };
  return { vocabulary, word };
}
