// MiniLM (all-MiniLM-L6-v2 int8 ONNX, the real fixture): what indexing costs and what retrieval gets for it, per way of
// reading a chunk, side by side in one run.
//
// Speed: the indexer's chunks (the chunker's output over generated lore, ~390 word pieces, as bench/embed-batch.ts
// makes them) embedded by every variant, step by step, the variants interleaved per step so the box's load drifts
// alike for all; chunks/s (wall) and CPU ms per chunk (this process's CPU time: ONNX Runtime's threads included).
// Variants, all reading 256 word pieces (the default): the session in the server's thread with `--threads` intra-op
// threads (as it was) or in worker threads of one intra-op thread each (EmbedderThreads), the graph as exported or
// with its softmax NaN guards pruned, spinning intra-op threads or not, one or four texts a pass.
// (The variants by how much of a chunk is read are in BENCHMARKS "Big worlds: MiniLM indexing".)
//
// Quality: recall of the answer's chunk for the grounding questions (each mind's own tags), by the vector search
// alone and by the hybrid retrieval a turn uses (vectors + full-text, fused), in three worlds: the tuning worlds
// (Thornhaven + Saltmarsh, chunks of 250–360 pieces in Thornhaven), the held-out world (Cindervale, 40–70 pieces a
// chunk: any cut at 128 or more reads all of it) and the held-out world at full chunk size
// (bench/support/longChunkWorld.ts: each answer hidden at a random place in a ~390-piece chunk, beside distractors;
// several seeds, each placing the answers anew). Every retrieval is paired with today's on the same question, so
// the table gives the questions a variant gains and loses against today, and a two-sided sign test on them.
//
// Reads (--reads, the first is the one the others are paired with): 512, 256, 128, w128 (windows of 128), and at 256
// the int8 MatMuls (256i8; 256i8k: the FFN output projections left in float) and 256x: lore embedded by the float
// graph, the questions by the int8 one (a project indexed before the switch, queried after it).
//
// Usage: bun bench/minilm-indexing.ts [--parts speed,quality] [--reads 512,256,128,w128] [--steps 4] [--step 24] [--seeds 1,2,3] [--threads 2]
import { availableParallelism, cpus, homedir, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { knowledgeTagNames } from "../src/lore/minds/mindStore.ts";
import { createDocument } from "../src/lore/documents/writeDocuments.ts";
import { createTag } from "../src/lore/tags/writeTags.ts";
import { createProject } from "../src/projects/projectService.ts";
import { retrieveLore } from "../src/retrieval/hybridSearch.ts";
import type { Embedder } from "../src/vectors/Embedder.ts";
import { EmbedderThreads } from "../src/vectors/threads/EmbedderThreads.ts";
import { TransformersEmbedder, type TransformersEmbedderOptions } from "../src/vectors/TransformersEmbedder.ts";
import { createTestApp, type TestApp } from "../test/support/testApp.ts";
import { indexerChunks } from "./support/indexerChunks.ts";
import { longChunkWorld } from "./support/longChunkWorld.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { loadWorld } from "./support/qualityWorldRun.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";

const { values: args } = parseArgs({
  options: {
    parts: { type: "string", default: "speed,quality" },
    steps: { type: "string", default: "4" },
    step: { type: "string", default: "24" },
    seeds: { type: "string", default: "1,2,3" },
    threads: { type: "string", default: "2" },
    speed: { type: "string", default: "" },
    reads: { type: "string", default: "512,256,128,w128" },
    model: { type: "string", default: join(homedir(), ".cache", "lorehold-fixtures", "embeddings", "all-MiniLM-L6-v2") },
  },
});
const parts = args.parts!.split(",");
const threads = Number(args.threads);
const root = join(import.meta.dir, "..");
const load = (o: TransformersEmbedderOptions) => TransformersEmbedder.load(args.model!, { threads, ...o });

const READS: { key: string; label: string; opts: TransformersEmbedderOptions; queries?: TransformersEmbedderOptions }[] = [
  { key: "512", label: "all of it (512 pieces)", opts: { int8: false, fuseGelu: false } },
  { key: "256", label: "first 256 pieces", opts: { maxTokens: 256, int8: false, fuseGelu: false } },
  { key: "128", label: "first 128 pieces", opts: { maxTokens: 128, int8: false, fuseGelu: false } },
  { key: "w128", label: "windows of 128, mean of all", opts: { maxTokens: 128, longText: "windows", int8: false, fuseGelu: false } },
  { key: "256i8", label: "first 256 pieces, int8 MatMuls", opts: { maxTokens: 256, int8: { weights: "s8" } } },
  { key: "256i8k", label: "first 256 pieces, int8 MatMuls but the FFN output projections", opts: { maxTokens: 256, int8: { weights: "s8", keepNarrowing: true } } },
  // Lore stored by the float graph, questions embedded by the int8 one: a project indexed before the switch.
  { key: "256x", label: "first 256 pieces: lore by the float graph, questions by int8", opts: { maxTokens: 256, int8: false, fuseGelu: false }, queries: { maxTokens: 256, int8: { weights: "s8" } } },
];
const SPEED: { label: string; make: () => Promise<Embedder> }[] = [
  { label: `as it was: in the server's thread, ${threads} intra-op threads, graph as exported`, make: () => load({ int8: false, fuseGelu: false, maxTokens: 256, pruneGuards: false }) },
  { label: `in the server's thread, ${threads} intra-op threads, NaN guards pruned`, make: () => load({ int8: false, fuseGelu: false, maxTokens: 256 }) },
  { label: `in the server's thread, ${threads} intra-op threads, pruned, no spinning`, make: () => load({ int8: false, fuseGelu: false, maxTokens: 256, spinning: false }) },
  { label: "in the server's thread, 1 intra-op thread, pruned", make: () => load({ int8: false, fuseGelu: false, maxTokens: 256, threads: 1 }) },
  { label: `${threads} worker threads × 1 intra-op, graph as exported`, make: () => EmbedderThreads.load(args.model!, { count: threads, int8: false, fuseGelu: false, maxTokens: 256, pruneGuards: false }) },
  { label: `**${threads} worker threads × 1 intra-op, pruned (as it was)**`, make: () => EmbedderThreads.load(args.model!, { count: threads, int8: false, fuseGelu: false, maxTokens: 256 }) },
  { label: `${threads} worker threads × 1 intra-op, pruned, 4 a pass (sorted by length)`, make: () => EmbedderThreads.load(args.model!, { count: threads, int8: false, fuseGelu: false, maxTokens: 256, batch: 4 }) },
  { label: `**${threads} worker threads × 1 intra-op, pruned, int8 MatMuls (now)**`, make: () => EmbedderThreads.load(args.model!, { count: threads, maxTokens: 256 }) },
];
const speedOnly = args.speed ? args.speed.split(",").map(Number) : null;

const machine = () => `${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}`;

// ---------------------------------------------------------------- speed
if (parts.includes("speed")) {
  const steps = Number(args.steps);
  const STEP = Number(args.step);
  const chunks = indexerChunks(steps * STEP, { sizeHint: steps * 200 * 40 });
  const variants: { label: string; e: Embedder; ms: number; cpu: number; n: number; lags: number[] }[] = [];
  for (const [i, s] of SPEED.entries()) if (!speedOnly || speedOnly.includes(i)) variants.push({ ...s, e: await s.make(), ms: 0, cpu: 0, n: 0, lags: [] });
  for (const v of variants) await v.e.embed(chunks.slice(0, 4)); // warm-up
  const loadStart = loadavg()[0];
  for (let s = 0; s < steps; s++) {
    const step = chunks.slice(s * STEP, (s + 1) * STEP);
    for (const v of variants) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      // How long a request arriving now would wait for the JavaScript thread: a 5 ms timer's lateness.
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        v.lags.push(Math.max(0, now - last - 5));
        last = now;
      }, 5);
      await v.e.embed(step);
      clearInterval(timer);
      v.ms += performance.now() - t0;
      const c = process.cpuUsage(c0);
      v.cpu += (c.user + c.system) / 1000;
      v.n += step.length;
    }
  }
  const enc = (await load({})) as TransformersEmbedder;
  const pieces = chunks.slice(0, steps * STEP).map((c) => Math.min(256, enc.tokenizer.encode(c).length as number)).sort((a, b) => a - b);
  await enc.dispose();
  const base = variants[0];
  const rate = (v: (typeof variants)[number]) => v.n / (v.ms / 1000);
  console.log(`\n### MiniLM indexing speed — ${new Date().toISOString().slice(0, 10)}\n`);
  console.log(`Machine: ${machine()} (load at start ${loadStart.toFixed(1)}). all-MiniLM-L6-v2 int8 ONNX, ${steps} steps of ${STEP} chunks (${pieces[0]}–${pieces.at(-1)} word pieces, median ${pieces[pieces.length >> 1]}), variants interleaved per step.\n`);
  const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
  console.log("| variant | chunks/s | ÷ first | CPU ms per chunk | first's CPU ÷ this | JS thread blocked p50 / p99 / max ms |");
  console.log("|---|---|---|---|---|---|");
  for (const v of variants)
    console.log(
      `| ${v.label} | ${rate(v).toFixed(1)} | ${(rate(v) / rate(base)).toFixed(2)} | ${(v.cpu / v.n).toFixed(0)} | ${(base.cpu / base.n / (v.cpu / v.n)).toFixed(2)} | ${pct(v.lags, 0.5).toFixed(0)} / ${pct(v.lags, 0.99).toFixed(0)} / ${Math.max(0, ...v.lags).toFixed(0)} |`,
    );
  for (const v of variants) await v.e.dispose?.();
}

// ---------------------------------------------------------------- quality
type Q = { text: string; tags: string[]; docId: string };
/** Hits per question: [vector@1, vector@4, hybrid@1, hybrid@4]. */
async function recalls(t: TestApp, projectOf: (q: Q) => string, qs: Q[]): Promise<boolean[][]> {
  for (let i = 0; i < 100; i++) {
    const r = (await t.app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
    if (!r || r.indexed === 0) break;
  }
  const out: boolean[][] = [];
  for (const q of qs) {
    const projectId = projectOf(q);
    const byVector = await t.app.ctx.vectors.searchVectors({ projectId, query: q.text, tags: q.tags, n: 4 });
    const hybrid = await retrieveLore(t.app.ctx, { projectId, query: q.text, tags: q.tags, k: 4 });
    out.push([byVector[0]?.documentId === q.docId, byVector.some((h) => h.documentId === q.docId), hybrid[0]?.documentId === q.docId, hybrid.some((h) => h.documentId === q.docId)]);
  }
  return out;
}

async function packWorld(e: Embedder, world: typeof TUNING): Promise<boolean[][]> {
  const t = await createTestApp({ embeddingModel: "hashing" }, { loadModel: false, embedder: e });
  try {
    const w = loadWorld(t, world, root);
    const ids: Record<string, string> = {};
    for (const projectId of Object.keys(w.key))
      for (const r of t.app.ctx.db.query<{ id: string; key: string }, [string]>("SELECT id, key FROM documents WHERE project_id = ?").all(projectId)) ids[r.key] = r.id;
    const qs = world.grounding.map((g) => ({ text: g.text, tags: knowledgeTagNames(t.app.ctx.db, w.minds[g.mind].id), docId: ids[g.doc!], mind: g.mind }));
    return await recalls(t, (q) => w.minds[(q as (typeof qs)[number]).mind].projectId, qs);
  } finally {
    await t.close();
  }
}

async function longWorld(e: Embedder, seed: number): Promise<boolean[][]> {
  const t = await createTestApp({ embeddingModel: "hashing" }, { loadModel: false, embedder: e });
  try {
    const world = longChunkWorld(seed);
    const projectId = createProject(t.app.ctx, { name: "Cindervale at full chunk size" }).id;
    for (const name of world.tags) createTag(t.app.ctx, projectId, { name });
    const ids: Record<string, string> = {};
    for (const d of world.documents) ids[d.key] = createDocument(t.app.ctx, projectId, { name: d.key, content: d.content, tags: d.tags }).id;
    const chunks = t.app.ctx.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM chunks WHERE project_id = ?");
    const qs = world.questions.map((q) => ({ text: q.text, tags: q.tags, docId: ids[q.doc] }));
    const r = await recalls(t, () => projectId, qs);
    const n = chunks.get(projectId)!.n;
    if (n !== world.documents.length) console.error(`long world: ${n} chunks for ${world.documents.length} documents (a document split)`);
    return r;
  } finally {
    await t.close();
  }
}

/** Two-sided exact sign test: the chance of a split at least this uneven between gains and losses if neither side is favoured. */
function signTest(gains: number, losses: number): number {
  const n = gains + losses;
  if (n === 0) return 1;
  const k = Math.min(gains, losses);
  let p = 0;
  let c = 1;
  for (let i = 0; i <= k; i++) {
    p += c / 2 ** n;
    c = (c * (n - i)) / (i + 1);
  }
  return Math.min(1, 2 * p);
}

/** Embeds the worlds' questions with `queries` and everything else (the lore) with `lore`, under `lore`'s id. */
async function crossEmbedder(lore: Embedder, queries: Embedder, seeds: number[]): Promise<Embedder> {
  const asked = new Set([...TUNING.grounding, ...CINDERVALE.grounding, ...seeds.flatMap((s) => longChunkWorld(s).questions)].map((q) => q.text));
  return {
    id: lore.id,
    dims: lore.dims,
    async embed(texts: string[]) {
      const [a, b] = await Promise.all([queries.embed(texts.filter((t) => asked.has(t))), lore.embed(texts.filter((t) => !asked.has(t)))]);
      return texts.map((t) => (asked.has(t) ? a.shift()! : b.shift()!));
    },
    async dispose() {
      await Promise.all([lore.dispose?.(), queries.dispose?.()]);
    },
  };
}

if (parts.includes("quality")) {
  const seeds = args.seeds!.split(",").map(Number);
  const worlds: { name: string; run: (e: Embedder) => Promise<boolean[][]> }[] = [
    { name: "tuning (Thornhaven + Saltmarsh)", run: (e) => packWorld(e, TUNING) },
    { name: "held-out (Cindervale)", run: (e) => packWorld(e, CINDERVALE) },
    { name: `held-out at full chunk size (seeds ${seeds.join(",")})`, run: async (e) => (await Promise.all(seeds.map((s) => longWorld(e, s)))).flat() },
  ];
  const res: Record<string, boolean[][][]> = {};
  const reads = args.reads!.split(",").map((k) => READS.find((r) => r.key === k)!);
  for (const r of reads) {
    const e = r.queries ? await crossEmbedder(await load(r.opts), await load(r.queries), seeds) : await load(r.opts);
    res[r.key] = [];
    for (const w of worlds) res[r.key].push(await w.run(e));
    await e.dispose?.();
    console.error(`quality: ${r.label} done`);
  }
  const METRICS = ["vector recall@1", "vector recall@4", "hybrid recall@1", "hybrid recall@4"];
  console.log(`\n### MiniLM retrieval by how much of a chunk is read — ${new Date().toISOString().slice(0, 10)}\n`);
  console.log(`Machine: ${machine()}. Recall of the answer's chunk, the grounding questions with each mind's own tags; "+g −l" = questions this variant answers that today's misses, and the reverse; p = two-sided sign test on them.\n`);
  worlds.forEach((w, wi) => {
    console.log(`\n#### ${w.name}\n`);
    console.log(`| read | ${METRICS.join(" | ")} |`);
    console.log(`|---|${METRICS.map(() => "---").join("|")}|`);
    for (const r of reads) {
      const mine = res[r.key][wi];
      const today = res[reads[0].key][wi];
      const cells = METRICS.map((_, m) => {
        const hits = mine.filter((x) => x[m]).length;
        const gains = mine.filter((x, i) => x[m] && !today[i][m]).length;
        const losses = mine.filter((x, i) => !x[m] && today[i][m]).length;
        const base = `${hits}/${mine.length} (${Math.round((100 * hits) / mine.length)} %)`;
        return r === reads[0] ? base : `${base} +${gains} −${losses}, p ${signTest(gains, losses).toFixed(2)}`;
      });
      console.log(`| ${r.label} | ${cells.join(" | ")} |`);
    }
  });
}
process.exit(0);
