/**
 * How a text's word pieces become the segments a sentence encoder reads. `truncate`: the first `maxTokens` pieces
 * ([CLS] and [SEP] included, as sentence-transformers cuts: the [SEP] is kept at the cut); `windows`: every piece,
 * in consecutive windows of `maxTokens` (each wrapped in its own [CLS] … [SEP]), up to `maxWindows` of them, the
 * text's vector then being the mean over all the windows' tokens.
 */
export type LongTextMode = "truncate" | "windows";

export interface Segment {
  /** the text the segment belongs to */
  text: number;
  ids: number[];
}

/** `ids`: a text's encoding with its special tokens, [CLS] first and [SEP] last. */
export function segmentsOf(text: number, ids: number[], maxTokens: number, mode: LongTextMode, maxWindows: number): Segment[] {
  if (ids.length <= maxTokens) return [{ text, ids }];
  const cls = ids[0];
  const sep = ids[ids.length - 1];
  const body = ids.slice(1, -1);
  const room = Math.max(1, maxTokens - 2);
  const count = mode === "truncate" ? 1 : Math.min(maxWindows, Math.ceil(body.length / room));
  const out: Segment[] = [];
  for (let w = 0; w < count; w++) out.push({ text, ids: [cls, ...body.slice(w * room, (w + 1) * room), sep] });
  return out;
}

/**
 * Mean pooling over every token of every segment of a text (padding left out), then L2 normalisation.
 * `hidden`: a pass's last hidden state, [segments, width, dims] row-major; `sums`/`counts` accumulate per text.
 */
export function accumulate(hidden: Float32Array, segments: Segment[], width: number, dims: number, sums: Float32Array[], counts: number[]): void {
  segments.forEach((s, b) => {
    const sum = sums[s.text];
    for (let t = 0; t < s.ids.length; t++) {
      const row = (b * width + t) * dims;
      for (let d = 0; d < dims; d++) sum[d] += hidden[row + d];
    }
    counts[s.text] += s.ids.length;
  });
}

export function meanNormalised(sum: Float32Array, count: number): Float32Array {
  let norm = 0;
  for (let d = 0; d < sum.length; d++) {
    sum[d] /= Math.max(1, count);
    norm += sum[d] * sum[d];
  }
  norm = Math.sqrt(norm);
  // a zero vector (no tokens at all) stays zero rather than NaN
  if (norm > 0) for (let d = 0; d < sum.length; d++) sum[d] /= norm;
  return sum;
}
