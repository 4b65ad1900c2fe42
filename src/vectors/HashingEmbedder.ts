import type { Embedder } from "./Embedder.ts";
import { fnv1a, mix32 } from "../core/hash32.ts";
import { EMBEDDER_FUNCTION_WORDS as STOPWORDS } from "../core/text/commonWords.ts";

const DIMS = 384;

// Distinct seeds per feature family, so the unigram "the" and the trigram "the" land in unrelated buckets.
const SEED_UNIGRAM = 0x9747b28c;
const SEED_BIGRAM = 0x85ebca6b;
const SEED_TRIGRAM = 0xc2b2ae35;

const WEIGHT_UNIGRAM = 1;
const WEIGHT_STOPWORD = 0.2;
const WEIGHT_BIGRAM = 0.6;
const WEIGHT_TRIGRAM = 0.25;

const WORD_RE = /[\p{L}\p{M}\p{N}]+/gu;

/** Adds ±weight at a hashed position; bit 0 picks the sign, the rest the bucket. */
function addFeature(v: Float32Array, hash: number, weight: number): void {
  const h = mix32(hash);
  v[(h >>> 1) % DIMS] += h & 1 ? weight : -weight;
}

/**
 * The built-in embedder (DESIGN.md "Retrieval"): signed feature hashing of
 * lower-cased word unigrams, word bigrams and character trigrams (of each word
 * padded with spaces, so "ring" ≈ "rings") into 384 dims, L2-normalised.
 * Needs no model files; deterministic across runs and machines. Any change to
 * the features or weights must change `id` (stored vectors would be stale).
 */
export class HashingEmbedder implements Embedder {
  readonly id = "hashing-384-v1";
  readonly dims = DIMS;

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array {
    const v = new Float32Array(DIMS);
    const words = text.toLowerCase().match(WORD_RE) ?? [];
    let prev = -1;
    for (const w of words) {
      const wh = fnv1a(w);
      const stop = STOPWORDS.has(w);
      addFeature(v, wh ^ SEED_UNIGRAM, stop ? WEIGHT_STOPWORD : WEIGHT_UNIGRAM);
      if (prev !== -1) addFeature(v, (Math.imul(prev, 0x9e3779b1) ^ wh ^ SEED_BIGRAM) >>> 0, WEIGHT_BIGRAM);
      prev = wh;
      if (!stop) {
        const padded = ` ${w} `;
        for (let i = 0; i + 3 <= padded.length; i++) addFeature(v, fnv1a(padded, i, i + 3) ^ SEED_TRIGRAM, WEIGHT_TRIGRAM);
      }
    }
    let norm = 0;
    for (let i = 0; i < DIMS; i++) norm += v[i] * v[i];
    if (norm === 0) {
      // No words at all: a fixed unit vector keeps "every vector has norm 1" true (cosine of a zero vector is NaN).
      v[0] = 1;
      return v;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < DIMS; i++) v[i] *= inv;
    return v;
  }
}
