/**
 * Retrieval benchmark: indexing throughput and vector-search latency (searchVectors,
 * the vector half of production retrieval) of the vector store with the built-in hashing embedder, at several corpus sizes,
 * printed side by side as a markdown table.
 *
 *   bun bench/retrieval.ts              # 1k, 10k, 100k chunks (~5 min on 2 cores)
 *   bun bench/retrieval.ts 1000 10000   # chosen sizes
 *
 * Corpus: synthetic ~300-word chunks (≈ 400 estimated tokens, the chunker's
 * target) drawn Zipf-like from a 5,000-word vocabulary, 20 chunks per document,
 * 5 projects with 10 tags each, 1–3 tags per chunk. Indexing goes through
 * replaceDocumentChunks one document at a time, as the indexer job does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { type ChunkRow, VectorStore } from "../src/vectors/VectorStore.ts";
import { prng } from "../test/support/prng.ts";
import { zipfWords } from "../test/support/zipfWords.ts";

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const SIZES = sizes.length ? sizes : [1_000, 10_000, 100_000];
const CHUNKS_PER_DOC = 20;
const WORDS_PER_CHUNK = 300;
const PROJECTS = 5;
const TAGS_PER_PROJECT = 10;
const QUERIES = 300;
const K = 8;

const rand = prng(7);

const { word } = zipfWords(rand);
const sentence = (n: number) => Array.from({ length: n }, word).join(" ");

const projectId = (p: number) => `proj_${p}`;
const tagOf = (p: number, t: number) => `p${p}-tag-${t}`;

function makeDoc(d: number): { projectId: string; documentId: string; rows: ChunkRow[] } {
  const p = d % PROJECTS;
  const documentId = `doc_${d}`;
  const rows = Array.from({ length: CHUNKS_PER_DOC }, (_, i) => {
    const nTags = 1 + Math.floor(rand() * 3);
    const tags = [...new Set(Array.from({ length: nTags }, () => tagOf(p, Math.floor(rand() * TAGS_PER_PROJECT))))];
    return {
      id: `${documentId}_${i}`,
      projectId: projectId(p),
      documentId,
      documentName: `Document ${d}`,
      chunkIndex: i,
      text: sentence(WORDS_PER_CHUNK),
      tags,
      locationId: null,
    };
  });
  return { projectId: projectId(p), documentId, rows };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0));

interface Result {
  size: number;
  indexSeconds: number;
  chunksPerSecond: number;
  optimizeSeconds: number;
  searchP50: number;
  searchP99: number;
  searchUnoptimizedP50: number;
  replaceP50: number;
  rssMb: number;
  diskMb: number;
}

async function dirSizeMb(dir: string): Promise<number> {
  const out = await Bun.$`du -sm ${dir}`.text();
  return Number(out.split(/\s/)[0]);
}

async function searchLatencies(store: VectorStore, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let q = 0; q < n + 10; q++) {
    const p = Math.floor(rand() * PROJECTS);
    const tags = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => tagOf(p, Math.floor(rand() * TAGS_PER_PROJECT)));
    const query = sentence(2 + Math.floor(rand() * 6));
    const t0 = performance.now();
    await store.searchVectors({ projectId: projectId(p), query, tags, n: K });
    if (q >= 10) times.push(performance.now() - t0); // the first 10 warm caches
  }
  return times;
}

async function run(size: number): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-"));
  try {
    const store = await VectorStore.open(dir, new HashingEmbedder());
    const docs = Math.ceil(size / CHUNKS_PER_DOC);
    // Generate the corpus first so text generation is not timed.
    const corpus = Array.from({ length: docs }, (_, d) => makeDoc(d));
    const t0 = performance.now();
    for (const doc of corpus) await store.replaceDocumentChunks(doc.projectId, doc.documentId, doc.rows);
    const indexSeconds = (performance.now() - t0) / 1000;
    process.stderr.write(`  ${size}: indexed in ${indexSeconds.toFixed(1)} s\n`);

    // Searches right after a burst of writes (some rows not yet folded into the indexes).
    const unoptimized = await searchLatencies(store, 50);
    const t1 = performance.now();
    await store.optimizeNow();
    const optimizeSeconds = (performance.now() - t1) / 1000;
    const times = await searchLatencies(store, QUERIES);

    // Re-indexing an existing document (the atomic merge-insert path).
    const replace: number[] = [];
    for (let i = 0; i < 20; i++) {
      const d = Math.floor(rand() * docs);
      const doc = makeDoc(d);
      const t = performance.now();
      await store.replaceDocumentChunks(doc.projectId, doc.documentId, doc.rows);
      replace.push(performance.now() - t);
    }
    const count = await store.countChunks();
    if (count !== docs * CHUNKS_PER_DOC) throw new Error(`expected ${docs * CHUNKS_PER_DOC} chunks, found ${count}`);
    await store.close();
    return {
      size: docs * CHUNKS_PER_DOC,
      indexSeconds,
      chunksPerSecond: (docs * CHUNKS_PER_DOC) / indexSeconds,
      optimizeSeconds,
      searchP50: pct(times, 50),
      searchP99: pct(times, 99),
      searchUnoptimizedP50: pct(unoptimized, 50),
      replaceP50: pct(replace, 50),
      rssMb: process.memoryUsage().rss / 2 ** 20,
      diskMb: await dirSizeMb(dir),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function embedThroughput(): Promise<number> {
  const e = new HashingEmbedder();
  const texts = Array.from({ length: 2000 }, () => sentence(WORDS_PER_CHUNK));
  await e.embed(texts.slice(0, 300)); // JIT warm-up
  const t0 = performance.now();
  await e.embed(texts);
  return texts.length / ((performance.now() - t0) / 1000);
}

const started = performance.now();
const lancedbVersion = (await Bun.file(join(import.meta.dir, "../node_modules/@lancedb/lancedb/package.json")).json()).version;
process.stderr.write(`retrieval bench: sizes ${SIZES.join(", ")}\n`);
const embedPerSecond = await embedThroughput();
const results: Result[] = [];
for (const size of SIZES) results.push(await run(size));

const cpu = cpus()[0]?.model ?? "unknown CPU";
console.log(`## Retrieval benchmark (hashing-384-v1 embedder)\n`);
console.log(
  `Machine: ${cpu}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, ${platform()} ${release()}; ` +
    `Bun ${Bun.version}, @lancedb/lancedb ${lancedbVersion}.`,
);
console.log(
  `Corpus: ~${WORDS_PER_CHUNK}-word chunks, ${CHUNKS_PER_DOC} per document, ${PROJECTS} projects × ${TAGS_PER_PROJECT} tags; ` +
    `searchVectors k=${K}, 1–3 tags, 2–7 query words, ${QUERIES} queries after optimize. Hashing embedder alone: ${embedPerSecond.toFixed(0)} chunks/s.\n`,
);
const cols = ["", ...results.map((r) => `${r.size.toLocaleString("en")} chunks`)];
const row = (label: string, f: (r: Result) => string) => `| ${[label, ...results.map(f)].join(" | ")} |`;
console.log(`| ${cols.join(" | ")} |`);
console.log(`|${cols.map(() => "---").join("|")}|`);
console.log(row("indexing (embed + write, per document)", (r) => `${r.chunksPerSecond.toFixed(0)} chunks/s (${r.indexSeconds.toFixed(1)} s)`));
console.log(row("optimize after the load", (r) => `${r.optimizeSeconds.toFixed(1)} s`));
console.log(row("searchVectors p50", (r) => `${fmt(r.searchP50)} ms`));
console.log(row("searchVectors p99", (r) => `${fmt(r.searchP99)} ms`));
console.log(row("searchVectors p50 before optimize", (r) => `${fmt(r.searchUnoptimizedP50)} ms`));
console.log(row("replace an existing 20-chunk document, p50", (r) => `${fmt(r.replaceP50)} ms`));
console.log(row("disk", (r) => `${r.diskMb} MB`));
console.log(row("process RSS after run", (r) => `${r.rssMb.toFixed(0)} MB`));
console.log(`\nTotal bench time: ${((performance.now() - started) / 1000).toFixed(0)} s.`);
