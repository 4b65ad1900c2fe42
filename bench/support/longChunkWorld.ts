import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { estimateTokens } from "../../src/lore/chunker.ts";
import { CINDERVALE } from "../worlds/cindervale.questions.ts";

/**
 * The held-out world (bench/worlds/cindervale.yaml) at full chunk size. Its documents are 30–60 words, so any cut of
 * a sentence encoder's input at 128 word pieces or more reads all of them; a big world's chunks are ~300 words
 * (the chunker's target), and there a cut leaves the end of a chunk unread. Here every document of the world is
 * hidden at a random sentence boundary inside a chunk-sized document (~360 estimated tokens, one chunk) of other
 * lore: a few of the world's own other sentences, varied (names and numbers swapped among the world's own, as
 * bench/support/bigWorld.ts does), the rest the tuning worlds' sentences (Thornhaven, Saltmarsh: another town's
 * vocabulary, so a word of the question is not in every chunk, as in a real big world, and full-text search keeps
 * its say), beside distractor documents of the same mix. The grounding questions then ask for the document that
 * holds the original: recall of the answer's chunk where the answer sits anywhere in a full chunk.
 */
export interface LongDocument {
  key: string;
  tags: string[];
  content: string;
}

export interface LongWorld {
  tags: string[];
  documents: LongDocument[];
  questions: { text: string; tags: string[]; doc: string }[];
}

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

const CHUNK_TOKENS = 360;
/** the world's own (varied) sentences in a chunk: near-misses of the answers, as a big world of one town holds */
const OWN_SENTENCES = 4;

export function longChunkWorld(seed: number, distractors = 40): LongWorld {
  const rnd = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const pack = parse(readFileSync(new URL("../worlds/cindervale.yaml", import.meta.url), "utf8")) as {
    documents: { key: string; tags: string[]; content: string }[];
    minds: { key: string; knowledgeTags: string[] }[];
  };
  const sentencesOf = (text: string) => text.split(/(?<=[.!?])\s+/).map((s) => s.replace(/\s+/g, " ").trim()).filter(Boolean);
  const all = pack.documents.flatMap((d) => sentencesOf(d.content).map((s) => ({ doc: d.key, s })));
  const names = [...new Set(all.map((x) => x.s).join(" ").match(/\b[A-Z][a-z]{3,}\b/g) ?? [])];
  const other = ["examples/thornhaven.yaml", "examples/saltmarsh-quality.yaml"].flatMap((f) =>
    (parse(readFileSync(new URL(`../../${f}`, import.meta.url), "utf8")) as { documents: { content: string }[] }).documents.flatMap((d) => sentencesOf(d.content)),
  ).filter((s) => !s.startsWith("#"));
  const vary = (s: string) => s.replace(/\b[A-Z][a-z]{3,}\b/g, (w) => (rnd() < 0.3 ? pick(names) : w)).replace(/\b\d+\b/g, () => String(1 + Math.floor(rnd() * 90)));
  /** ~`tokens` of lore: OWN_SENTENCES of the world's own (not from `except`), varied, the rest the tuning worlds'. */
  const fill = (except: string | null, tokens: number) => {
    const out: string[] = [];
    let n = 0;
    let own = 0;
    while (n < tokens) {
      const x = own < OWN_SENTENCES ? pick(all) : { doc: null, s: pick(other) };
      if (x.doc !== null && x.doc === except) continue;
      if (x.doc !== null) own++;
      const s = x.doc === null ? x.s : vary(x.s);
      out.splice(Math.floor(rnd() * (out.length + 1)), 0, s);
      n += estimateTokens(s);
    }
    return out;
  };
  const tags = [...new Set(pack.documents.flatMap((d) => d.tags))];
  const documents: LongDocument[] = pack.documents.map((d) => {
    const own = d.content.replace(/\s+/g, " ").trim();
    const around = fill(d.key, CHUNK_TOKENS - estimateTokens(own));
    const at = Math.floor(rnd() * (around.length + 1));
    return { key: d.key, tags: d.tags, content: [...around.slice(0, at), own, ...around.slice(at)].join(" ") };
  });
  for (let i = 0; i < distractors; i++) documents.push({ key: `filler-${i}`, tags: [pick(tags)], content: fill(null, CHUNK_TOKENS).join(" ") });
  const mindTags = Object.fromEntries(pack.minds.map((m) => [m.key, m.knowledgeTags]));
  const questions = CINDERVALE.grounding.map((q) => ({ text: q.text, tags: mindTags[q.mind], doc: q.doc! }));
  return { tags, documents, questions };
}
