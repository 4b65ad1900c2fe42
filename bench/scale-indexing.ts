// Indexing throughput through the indexer job (chunk + embed + LanceDB + SQLite) as the project grows: one project
// per `--existing` size already holding that many indexed chunks, each then given the same new documents, indexed by
// the job's own function (runIndexer) a tenth of the backlog at a time, the projects alternating tenth by tenth (the
// box's load drifts over minutes: each tenth of one is measured beside the same tenth of the others). Flat means the
// project's size costs nothing per document. Reports chunks/s (first tenth, last tenth, whole backlog) and where the
// time went: the vector store's write (embedding, LanceDB, its waits for compaction), compaction itself, and the rest
// (claiming, chunking, SQLite's chunk and FTS rows).
// With --policies now,before each size runs twice, the second with the upkeep's commit rule as it was.
// With --embedder minilm the new documents are embedded by all-MiniLM-L6-v2 (the real fixture, read as the server
// reads it: embeddingMaxTokens, --threads intra-op threads); the existing lore is then written with the hashing
// embedder's vectors under MiniLM's id (its vectors are never searched here, and embedding 100k chunks for real
// would take hours): what is measured is the new documents' indexing beside a project of that size.
// Usage: bun bench/scale-indexing.ts [--documents 2000] [--existing 0,10000,100000] [--batch 32] [--policies now]
//        [--embedder hashing|minilm] [--threads 2] [--max-tokens 256]
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { newId } from "../src/core/ids.ts";
import { chunkText } from "../src/lore/chunker.ts";
import { claimPendingDocument, completeDocument } from "../src/lore/documents/documentStore.ts";
import { createDocument } from "../src/lore/documents/writeDocuments.ts";
import { runIndexer, type IndexerContext } from "../src/lore/indexer/indexerJob.ts";
import { createTag } from "../src/lore/tags/writeTags.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { createProject } from "../src/projects/projectService.ts";
import { createEmbedder } from "../src/vectors/createEmbedder.ts";
import { HashingEmbedder } from "../src/vectors/HashingEmbedder.ts";
import { TransformersEmbedder } from "../src/vectors/TransformersEmbedder.ts";
import { realFixtures } from "../test/realmodel/realFixtures.ts";
import type { DocumentChunks } from "../src/vectors/writeChunks.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { optimizeAsItWas } from "./support/optimizeAsItWas.ts";

const { values: args } = parseArgs({
  options: { ways: { type: "string", default: "now" }, documents: { type: "string", default: "2000" }, existing: { type: "string", default: "0,10000,100000" }, batch: { type: "string", default: "32" }, policies: { type: "string", default: "now" }, embedder: { type: "string", default: "hashing" }, threads: { type: "string", default: "2" }, "max-tokens": { type: "string", default: "256" } },
});
const policies = args.policies!.split(",");
// MiniLM only: "before" runs the model as it was (in the server's thread, --threads intra-op threads, the graph as
// exported), "now" as the server does (--threads worker threads of one intra-op thread, NaN guards pruned).
const ways = args.ways!.split(",");
const docs = Number(args.documents);
const sizes = args.existing!.split(",").map(Number);
const batchSize = Number(args.batch);
const PER_DOC = 4;
const world = bigWorld({ chunks: docs * PER_DOC * 5, chunksPerDocument: PER_DOC * 5, queries: 1 });
// ~4 chunks a document: five generated chunks of ~60 words per part, four parts under headings
const content = (d: number) => {
  const part = (i: number) => world.chunks.slice(((d % docs) * PER_DOC + i) * 5, ((d % docs) * PER_DOC + i + 1) * 5).map((c) => c.text).join(" ");
  return Array.from({ length: PER_DOC }, (_, i) => `## Part ${i}\n\n${part(i)} ${part((i + 1) % PER_DOC)}`).join("\n\n");
};

const variants = [];
let embedderLabel = "Hashing embedder";
for (const existing of sizes) for (const policy of policies) for (const way of ways) {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-idx-"));
  const config = loadConfig({ cwd: dir, env: {}, flags: { dataDir: join(dir, "data"), modelsDir: dir, logLevel: "silent" } });
  const fx = args.embedder === "minilm" ? realFixtures() : null;
  if (args.embedder === "minilm" && !fx) throw new Error("bench/scale-indexing: the MiniLM fixture is missing; run `sh scripts/fetch-fixtures.sh` first");
  const minilm = { threads: Number(args.threads), maxTokens: Number(args["max-tokens"]) };
  const embedder = !fx
    ? undefined
    : way === "before"
      ? await TransformersEmbedder.load(join(fx.modelsDir, "embeddings", fx.minilm), { ...minilm, pruneGuards: false })
      : await createEmbedder(fx.minilm, fx.modelsDir, { ...minilm, workers: minilm.threads });
  const app = await App.create(config, { logger: silentLogger, loadModel: false, embedder });
  if (embedder) embedderLabel = `${embedder.id} embedder, ${args.threads} threads (before: intra-op in the server's thread; now: worker threads)`;
  const projectId = createProject(app.ctx, { name: "Bench" }).id;
  for (const name of world.tags) createTag(app.ctx, projectId, { name });
  const count = () => app.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM chunks").get()!.n;
  // the existing lore, written the way the indexer writes it (documents, chunks and FTS rows in SQLite, LanceDB
  // rows) but in batches of ~5,000 chunks, so a 100k-chunk project is ready in minutes
  const t0 = performance.now();
  let d = 0;
  // the existing lore's vectors: the hashing embedder's under the real embedder's id (see the header)
  const realEmbed = embedder?.embed.bind(embedder);
  if (embedder) embedder.embed = (texts) => new HashingEmbedder().embed(texts);
  while (count() < existing) {
    const batch: { doc: NonNullable<ReturnType<typeof claimPendingDocument>>; chunks: { id: string; chunkIndex: number; content: string }[] }[] = [];
    let n = 0;
    while (n < 5000 && count() + n < existing) {
      createDocument(app.ctx, projectId, { name: `Old ${d}`, content: content(d), tags: [world.tags[d % world.tags.length]] });
      d++;
      const doc = claimPendingDocument(app.ctx)!;
      const chunks = chunkText(doc.content).map((c) => ({ ...c, id: newId("chunk") }));
      batch.push({ doc, chunks });
      n += chunks.length;
    }
    const rows: DocumentChunks[] = batch.map(({ doc, chunks }) => ({
      documentId: doc.id,
      rows: chunks.map((c) => ({ id: c.id, projectId, documentId: doc.id, documentName: doc.name, chunkIndex: c.chunkIndex, text: c.content, tags: doc.tags, locationId: null })),
    }));
    await app.ctx.vectors.replaceDocumentsChunks(projectId, rows);
    for (const b of batch) completeDocument(app.ctx, b.doc, b.chunks);
  }
  if (embedder && realEmbed) embedder.embed = realEmbed;
  await app.ctx.vectors.optimizeNow();
  // "before": the upkeep's commit rule as it was (any 2 s pause compacted the table)
  if (policy === "before") optimizeAsItWas(app.ctx.vectors.upkeep);
  const fillMs = performance.now() - t0;
  for (let i = 0; i < docs; i++) createDocument(app.ctx, projectId, { name: `Doc ${i}`, content: content(i), tags: [world.tags[i % world.tags.length]] });
  // where the time goes: the store's write call, and the compactions the upkeep policy runs
  const spent = { write: 0, optimize: 0, compactions: 0 };
  const store = app.ctx.vectors;
  const write = store.replaceDocumentsChunks.bind(store);
  store.replaceDocumentsChunks = async (p, ds) => {
    const s = performance.now();
    await write(p, ds);
    spent.write += performance.now() - s;
  };
  const optimize = store.upkeep.run.bind(store.upkeep);
  // each optimize once (a commit landing while one runs joins it: not a second compaction)
  const seen = new WeakSet<Promise<void>>();
  store.upkeep.run = (kind) => {
    const s = performance.now();
    const p = optimize(kind);
    if (seen.has(p)) return p;
    seen.add(p);
    spent.compactions++;
    return p.finally(() => {
      spent.optimize += performance.now() - s;
    });
  };
  const timed = async (n: number) => {
    const c0 = count();
    const cpu0 = process.cpuUsage();
    const s = performance.now();
    let done = 0;
    while (done < n) {
      const r = await runIndexer(app.ctx as IndexerContext, undefined, Math.min(50, n - done), batchSize);
      if (!r || r.indexed === 0) break;
      done += r.indexed;
    }
    const cpu = process.cpuUsage(cpu0);
    v.cpuMs += (cpu.user + cpu.system) / 1000;
    return { chunks: count() - c0, ms: performance.now() - s };
  };
  const v = { existing: count(), policy, way, embedder, fillMs, app, dir, count, timed, spent, cpuMs: 0, tenths: [] as { chunks: number; ms: number }[] };
  variants.push(v);
}
const tenth = Math.max(1, Math.floor(docs / 10));
for (let i = 0; i < 10; i++) for (const v of variants) v.tenths.push(await v.timed(i === 9 ? docs : tenth));
const rate = (t: { chunks: number; ms: number }[]) => t.reduce((s, x) => s + x.chunks, 0) / (t.reduce((s, x) => s + x.ms, 0) / 1000);
const fmt = (r: number) => (r < 10 ? r.toFixed(1) : r.toFixed(0));
const rows: string[] = [];
for (const v of variants) {
  const total = v.tenths.reduce((s, x) => s + x.ms, 0);
  const share = (ms: number) => `${((100 * ms) / total).toFixed(0)} %`;
  rows.push(
    `| ${v.existing.toLocaleString("en")}${policies.length > 1 ? ` | ${v.policy === "before" ? "as it was" : "now"}` : ""}${ways.length > 1 ? ` | ${v.way}` : ""} | ${(v.cpuMs / Math.max(1, v.count() - v.existing)).toFixed(0)} | ${(v.count() - v.existing).toLocaleString("en")} | ${fmt(rate(v.tenths.slice(0, 1)))} chunks/s | ${fmt(rate(v.tenths.slice(9)))} chunks/s | **${fmt(rate(v.tenths))} chunks/s** | ${share(v.spent.write)} (${v.spent.compactions} compactions, ${share(v.spent.optimize)}) | ${share(total - v.spent.write)} | ${(v.fillMs / 1000).toFixed(0)} s |`,
  );
  await v.app.stop();
  await v.embedder?.dispose?.();
  rmSync(v.dir, { recursive: true, force: true });
}
console.log(`\n### Indexing as the project grows — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}. ${embedderLabel}, ${docs.toLocaleString("en")} new documents of ~${PER_DOC} chunks (~1,200 words), ${batchSize} documents / 256 chunks a step.\n`);
const head = ["chunks already indexed", ...(policies.length > 1 ? ["upkeep"] : []), ...(ways.length > 1 ? ["embedder"] : []), "CPU ms a chunk", "new chunks", "first tenth", "last tenth", "whole backlog", "vector store write", "the rest", "fill"];
console.log(`| ${head.join(" | ")} |`);
console.log(`|${head.map(() => "---").join("|")}|`);
for (const r of rows) console.log(r);
process.exit(0);
