// Indexing throughput through the indexer job (chunk + embed + LanceDB + SQLite) over a bulk import, at the start
// of the backlog and at its end, a document at a time (as the indexer wrote before) and in batches — side by side
// in one run. Flat means the project's size costs nothing per document.
// Usage: bun bench/scale-indexing.ts [--documents 2000]
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { createDocument } from "../src/lore/documents/writeDocuments.ts";
import { createTag } from "../src/lore/tags/writeTags.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { createProject } from "../src/projects/projectService.ts";
import { bigWorld } from "./support/bigWorld.ts";
import { runIndexer, type IndexerContext } from "../src/lore/indexer/indexerJob.ts";

const { values: args } = parseArgs({ options: { documents: { type: "string", default: "2000" } } });
const docs = Number(args.documents);
const PER_DOC = 4;
const world = bigWorld({ chunks: docs * PER_DOC * 5, chunksPerDocument: PER_DOC * 5, queries: 1 });

const rows: string[] = [];
const variants = [];
for (const batchSize of [1, 32]) {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-idx-"));
  const config = loadConfig({ cwd: dir, env: {}, flags: { dataDir: join(dir, "data"), modelsDir: dir, logLevel: "silent" } });
  const app = await App.create(config, { logger: silentLogger, loadModel: false });
  const projectId = createProject(app.ctx, { name: "Bench" }).id;
  for (const name of world.tags) createTag(app.ctx, projectId, { name });
  // ~4 chunks a document: five generated chunks of ~60 words per part, four parts under headings
  for (let d = 0; d < docs; d++) {
    const part = (i: number) => world.chunks.slice((d * PER_DOC + i) * 5, (d * PER_DOC + i + 1) * 5).map((c) => c.text).join(" ");
    const content = Array.from({ length: PER_DOC }, (_, i) => `## Part ${i}\n\n${part(i)} ${part((i + 1) % PER_DOC)}`).join("\n\n");
    createDocument(app.ctx, projectId, { name: `Doc ${d}`, content, tags: [world.tags[d % world.tags.length]] });
  }
  const count = () => app.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM chunks").get()!.n;
  const timed = async (n: number) => {
    const c0 = count();
    const t0 = performance.now();
    let done = 0;
    while (done < n) {
      // the job's own function, with the batch size under test (1: a document at a time, as it was)
      const r = await runIndexer(app.ctx as IndexerContext, undefined, Math.min(50, n - done), batchSize);
      if (!r || r.indexed === 0) break;
      done += r.indexed;
    }
    return { chunks: count() - c0, ms: performance.now() - t0 };
  };
  variants.push({ batchSize, app, dir, count, timed, tenths: [] as { chunks: number; ms: number }[] });
}
// the backlog a tenth at a time, the two variants alternating: the box's load drifts over minutes, so each tenth
// of one is measured beside the same tenth of the other
const tenth = Math.max(1, Math.floor(docs / 10));
for (let i = 0; i < 10; i++) for (const v of variants) v.tenths.push(await v.timed(i === 9 ? docs : tenth));
const rate = (t: { chunks: number; ms: number }[]) => t.reduce((s, x) => s + x.chunks, 0) / (t.reduce((s, x) => s + x.ms, 0) / 1000);
for (const v of variants) {
  rows.push(
    `| ${v.batchSize === 1 ? "one at a time (as it was)" : `${v.batchSize} documents / 256 chunks`} | ${docs.toLocaleString("en")} | ${v.count().toLocaleString("en")} | ${rate(v.tenths.slice(0, 1)).toFixed(0)} chunks/s | ${rate(v.tenths.slice(9)).toFixed(0)} chunks/s | ${rate(v.tenths).toFixed(0)} chunks/s |`,
  );
  await v.app.stop();
  rmSync(v.dir, { recursive: true, force: true });
}
console.log(`\n### Indexing a bulk import — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}. Hashing embedder, documents of ~${PER_DOC} chunks (~1,200 words), all created before the indexer starts.\n`);
console.log("| indexer writes | documents | chunks | first tenth of the backlog | last tenth | whole backlog |");
console.log("|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
process.exit(0);
