// The runtime's lore retrieval (in-memory vectors + SQLite FTS5, fused by rank, verified against SQLite)
// side by side with LanceDB's own hybrid search over the same chunks, at growing sizes.
// Usage: bun bench/runtime-retrieval.ts [--sizes 1000,10000,100000] [--queries 300]
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { loadConfig } from "../src/config/config.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { createProject } from "../src/projects/projectService.ts";
import { createTag } from "../src/lore/tags/writeTags.ts";
import { createDocument } from "../src/lore/documents/writeDocuments.ts";
import { retrieveLore } from "../src/retrieval/hybridSearch.ts";

const { values: args } = parseArgs({ options: { sizes: { type: "string", default: "1000,10000,100000" }, queries: { type: "string", default: "300" } } });
const sizes = args.sizes!.split(",").map(Number);
const nQueries = Number(args.queries);

const VOCAB = (
  "river mill ferry toll abbey crypt bell lantern smuggler tunnel cellar harbour ship storm keeper lighthouse " +
  "merchant caravan road bridge guard gate wall tower king queen dragon gold silver salt wool ale bread stew " +
  "priest relic oath debt feud winter harvest flood marsh fog raven wolf horse forge blade shield map letter"
).split(" ");
let seed = 42;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const sentence = () => Array.from({ length: 12 }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]).join(" ") + ".";
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const TAGS = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"];

const rows: string[] = [];
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-rr-"));
  const config = loadConfig({ cwd: dir, env: {}, flags: { dataDir: join(dir, "data"), modelsDir: dir, logLevel: "silent" } });
  const app = await App.create(config, { logger: silentLogger, loadModel: false });
  const projectId = createProject(app.ctx, { name: "Bench" }).id;
  for (const name of TAGS) createTag(app.ctx, projectId, { name });
  // ~20 chunks of ~300 words per document, as in bench/retrieval.ts
  const perDoc = 20;
  for (let d = 0; d * perDoc < size; d++) {
    const content = Array.from({ length: perDoc }, (_, i) => `## Part ${i}\n\n${Array.from({ length: 25 }, sentence).join(" ")}`).join("\n\n");
    createDocument(app.ctx, projectId, { name: `Doc ${d}`, content, tags: [TAGS[d % TAGS.length]] });
  }
  const t0 = performance.now();
  for (;;) {
    const r = (await app.scheduler.trigger("indexer"))!.lastResult as { indexed: number } | null;
    if (!r || r.indexed === 0) break;
  }
  const indexSeconds = (performance.now() - t0) / 1000;
  const chunks = app.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM chunks WHERE project_id = ?").get(projectId)!.n;
  await app.ctx.vectors.optimizeNow();
  const w0 = performance.now();
  await app.ctx.vectors.warm([projectId]);
  const warmMs = performance.now() - w0;
  const queries = Array.from({ length: nQueries }, () => ({ q: Array.from({ length: 6 }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]).join(" "), tags: TAGS.filter(() => rnd() < 0.3) }));
  const runtime: number[] = [];
  const lance: number[] = [];
  for (const { q, tags } of queries) {
    const use = tags.length ? tags : ["t0"];
    let s = performance.now();
    await retrieveLore(app.ctx, { projectId, query: q, tags: use, k: 4 });
    runtime.push(performance.now() - s);
    s = performance.now();
    await app.ctx.vectors.searchLore({ projectId, query: q, tags: use, k: 4 });
    lance.push(performance.now() - s);
  }
  rows.push(
    `| ${chunks.toLocaleString("en")} | ${(chunks / indexSeconds).toFixed(0)} chunks/s | ${warmMs.toFixed(0)} ms | ` +
      `${pct(runtime, 0.5).toFixed(1)} / ${pct(runtime, 0.99).toFixed(1)} ms | ${pct(lance, 0.5).toFixed(1)} / ${pct(lance, 0.99).toFixed(1)} ms | ` +
      `${(pct(lance, 0.5) / pct(runtime, 0.5)).toFixed(1)}× |`,
  );
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\n### Runtime lore retrieval — ${new Date().toISOString().slice(0, 10)}\n`);
console.log(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; Bun ${Bun.version}. Hashing embedder, k = 4, ${nQueries} queries of 6 words over random tag subsets, chunks of ~300 words.\n`);
console.log("| chunks | indexing (through the indexer job: chunk + embed + LanceDB + SQLite) | vector cache load | runtime retrieval p50 / p99 | LanceDB hybrid p50 / p99 | speed-up (p50) |");
console.log("|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
process.exit(0);
