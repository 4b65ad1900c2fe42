import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { CINDERVALE } from "../worlds/cindervale.questions.ts";

/**
 * A generated world of N lore chunks for the scale benches, seeded so every run and machine sees the same text:
 * the held-out quality world's lore (bench/worlds/cindervale.yaml) split into sentences, recombined with
 * variations (names, numbers and places swapped among the world's own), and filler of the world's vocabulary.
 * Tags: `tagCount` tags, each chunk carries one or two. Queries: the world's grounding questions and random
 * phrases of its words, each over a random subset of the tags.
 */

export interface BigChunk {
  id: string;
  documentId: string;
  documentName: string;
  chunkIndex: number;
  text: string;
  tags: string[];
}

export interface BigQuery {
  text: string;
  tags: string[];
}

export interface BigWorld {
  tags: string[];
  chunks: BigChunk[];
  queries: BigQuery[];
}

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    // xorshift32: cheap, seeded, the same everywhere
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

function loreSentences(): string[] {
  const pack = parse(readFileSync(new URL("../worlds/cindervale.yaml", import.meta.url), "utf8")) as { documents: { content: string }[] };
  return pack.documents.flatMap((d) => d.content.split(/(?<=[.!?])\s+/).map((s) => s.replace(/\s+/g, " ").trim())).filter((s) => s.split(" ").length >= 4);
}

export function bigWorld(opts: { chunks: number; tagCount?: number; chunksPerDocument?: number; queries?: number; seed?: number }): BigWorld {
  const rnd = rng(opts.seed ?? 7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const tags = Array.from({ length: opts.tagCount ?? 20 }, (_, i) => `t${i}`);
  const sentences = loreSentences();
  const vocab = [...new Set(sentences.join(" ").toLowerCase().match(/[a-z]+/g) ?? [])].filter((w) => w.length > 2);
  const names = [...new Set(sentences.join(" ").match(/\b[A-Z][a-z]{3,}\b/g) ?? [])];
  const vary = (s: string) => s.replace(/\b[A-Z][a-z]{3,}\b/g, (w) => (rnd() < 0.3 ? pick(names) : w)).replace(/\b\d+\b/g, () => String(1 + Math.floor(rnd() * 90)));
  const filler = (n: number) => Array.from({ length: n }, () => pick(vocab)).join(" ") + ".";
  const perDoc = opts.chunksPerDocument ?? 20;
  const chunks: BigChunk[] = [];
  for (let i = 0; i < opts.chunks; i++) {
    const d = Math.floor(i / perDoc);
    // about 60 words: three lore sentences (varied), then a filler sentence
    const text = [vary(pick(sentences)), vary(pick(sentences)), vary(pick(sentences)), filler(12)].join(" ");
    const own = [tags[d % tags.length]];
    if (rnd() < 0.3) own.push(pick(tags));
    chunks.push({ id: `c${i}`, documentId: `d${d}`, documentName: `Document ${d}`, chunkIndex: i % perDoc, text, tags: [...new Set(own)] });
  }
  const questions = CINDERVALE.grounding.map((g) => g.text);
  const queries: BigQuery[] = Array.from({ length: opts.queries ?? 300 }, (_, i) => ({
    text: i % 2 === 0 ? questions[(i / 2) % questions.length] : Array.from({ length: 6 }, () => pick(vocab)).join(" "),
    tags: tags.filter(() => rnd() < 0.3).concat(pick(tags)),
  }));
  return { tags, chunks, queries };
}
